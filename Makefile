# Targets: test (what CI runs), bench, fuzz, lint, cover, bench-peers.
GO          ?= go
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
# Property tests run at a larger size here than in the quick -race pass.
RAPID_CHECKS ?= 1000
PROP_PKGS   ?= $(shell $(GO) list -f '{{if or (.TestImports) (.XTestImports)}}{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}{{end}}' ./... | awk '/pgregory.net\/rapid/ {print $$1}')
FUZZTIME    ?= 30s
BENCHSTAT   ?= golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da

.PHONY: test vet race props bench fuzz lint cover bench-test bench-peers grpc-test redis-test nats-test

test: vet race props bench-test grpc-test redis-test nats-test

vet:
	$(GO) vet ./...

race:
	$(GO) test -race -count=1 ./...

props:
	@if [ -n "$(PROP_PKGS)" ]; then $(GO) test -count=1 -run 'Prop|Law' $(PROP_PKGS) -rapid.checks=$(RAPID_CHECKS); fi

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

fuzz:
	@for p in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$p | grep '^Fuzz'); do \
	    $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$p || exit 1; \
	  done; \
	done

lint: vet
	$(GO) run $(STATICCHECK) ./...
	cd bench && $(GO) run $(STATICCHECK) ./...
	cd grpcretry && $(GO) run $(STATICCHECK) ./...
	cd redisretry && $(GO) run $(STATICCHECK) ./...
	cd natsretry && $(GO) run $(STATICCHECK) ./...

cover:
	$(GO) test -coverprofile=cover.out ./...
	$(GO) tool cover -func=cover.out | tail -1

# bench/ is a module of its own (the peers it measures stay out of the main
# go.mod), so ./... above never enters it: its tests run here, without
# benchmarks.
bench-test:
	cd bench && $(GO) vet ./... && $(GO) test -count=1 ./...

# grpcretry/ is a module of its own too (google.golang.org/grpc stays out
# of the main go.mod); its tests run against real servers on loopback.
grpc-test:
	cd grpcretry && $(GO) vet ./... && $(GO) test -race -count=1 ./...

# redisretry/ and natsretry/ are modules of their own (go-redis, nats.go
# and the embedded nats-server stay out of the main go.mod). redisretry's
# tests start /usr/bin/redis-server on a free loopback port (.ci/run
# installs it); natsretry's run the NATS server in the test process.
redis-test:
	cd redisretry && $(GO) vet ./... && $(GO) test -race -count=1 ./...

nats-test:
	cd natsretry && $(GO) vet ./... && $(GO) test -race -count=1 ./...

# recur against its peers, side by side: -count 10 and benchstat, one
# column per library. The raw numbers stay in bench/bench.txt. The breaker
# and budget rows run again at -cpu 1 (their rows without the -N suffix).
bench-peers: SHELL := /bin/bash
bench-peers: .SHELLFLAGS := -o pipefail -c
bench-peers:
	cd bench && $(GO) test -run '^$$' -bench . -benchmem -count 10 ./... | tee bench.txt
	cd bench && $(GO) test -run '^$$' -bench '^Benchmark(Breaker|Budget)' -benchmem -count 10 -cpu 1 . | tee -a bench.txt
	cd bench && $(GO) run $(BENCHSTAT) -col /lib bench.txt
