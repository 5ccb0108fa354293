# Targets: test (what CI runs), bench, fuzz, lint, cover, bench-peers.
GO          ?= go
# Property tests run at a larger size here than in the quick -race pass.
RAPID_CHECKS ?= 1000
PROP_PKGS   ?= $(shell $(GO) list -f '{{if or (.TestImports) (.XTestImports)}}{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}{{end}}' ./... | awk '/pgregory.net\/rapid/ {print $$1}')
FUZZTIME    ?= 30s

.PHONY: tidy test vet race props bench fuzz lint cover bench-test bench-peers grpc-test pg-test

test: vet race props bench-test grpc-test pg-test

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

# staticcheck and benchstat are pinned by the tool directives in go.mod;
# the nested modules borrow the main module's copy through -modfile.
STATICCHECK  = $(GO) tool -modfile=$(CURDIR)/go.mod staticcheck

# Every module of the workspace (go.work), for the tidy check.
MODULES     ?= $(shell $(GO) list -m -f '{{.Dir}}')

# internal/exhaustive: every type switch over the schedule variants names
# them all (make test runs it too, with the other tests).
lint: vet tidy
	$(GO) tool staticcheck ./...
	$(GO) test -count=1 ./internal/exhaustive
	cd bench && $(STATICCHECK) ./...
	cd grpcretry && $(STATICCHECK) ./...
	cd pgretry && $(STATICCHECK) ./...

# tidy fails when any module's go.mod or go.sum is not what go mod tidy
# would write. Each module is tidied on its own (GOWORK=off), as a user
# who depends on it sees it.
tidy:
	@for d in $(MODULES); do \
	  (cd $$d && GOWORK=off $(GO) mod tidy -diff >/dev/null) || { echo "$$d: go.mod is not tidy: run GOWORK=off go mod tidy there"; exit 1; }; \
	done

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

# pgretry/ is a module of its own (pgx stays out of the main go.mod); its
# tests start PostgreSQL from /usr/lib/postgresql/*/bin (Debian's
# postgresql package, which .ci/run installs) and fail without it when
# CI=true.
pg-test:
	cd pgretry && $(GO) vet ./... && $(GO) test -race -count=1 ./...

# recur against its peers, side by side: -count 10 and benchstat, one
# column per library. The raw numbers stay in bench/bench.txt. The breaker
# and budget rows run again at -cpu 1 (their rows without the -N suffix).
bench-peers: SHELL := /bin/bash
bench-peers: .SHELLFLAGS := -o pipefail -c
bench-peers:
	cd bench && $(GO) test -run '^$$' -bench . -benchmem -count 10 ./... | tee bench.txt
	cd bench && $(GO) test -run '^$$' -bench '^Benchmark(Breaker|Budget)' -benchmem -count 10 -cpu 1 . | tee -a bench.txt
	cd bench && $(GO) tool -modfile=$(CURDIR)/go.mod benchstat -col /lib bench.txt
