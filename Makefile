# Targets: test (what CI runs), bench, bench-guard, fuzz, lint, cover, bench-peers,
# wasm, site, browser-test, screenshot.
GO          ?= go
# Property tests run at a larger size here than in the quick -race pass.
RAPID_CHECKS ?= 1000
# prop_pkgs lists the packages of the module in folder $(1) whose tests
# import rapid.
prop_pkgs    = $(shell cd $(1) && $(GO) list -f '{{if or (.TestImports) (.XTestImports)}}{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}{{end}}' ./... | awk '/pgregory.net\/rapid/ {print $$1}')
PROP_PKGS   ?= $(call prop_pkgs,.)
CLI_PROP_PKGS ?= $(call prop_pkgs,cmd/schedcheck)
FUZZTIME    ?= 30s

.PHONY: tidy test vet race props bench fuzz lint cover bench-test bench-peers grpc-test pg-test redis-test nats-test wasm site browser-test screenshot
.PHONY: prom-test otel-test mongo-test config-test failure-test cli-test capi-test h3-test standalone bench-guard

test: vet race props cli-test bench-test grpc-test pg-test redis-test nats-test browser-test prom-test otel-test mongo-test config-test failure-test capi-test h3-test bench-guard

vet:
	$(GO) vet ./...
	cd cmd/schedcheck && $(GO) vet ./...

race:
	$(GO) test -race -count=1 ./...

props:
	@if [ -n "$(PROP_PKGS)" ]; then $(GO) test -count=1 -run 'Prop|Law' $(PROP_PKGS) -rapid.checks=$(RAPID_CHECKS); fi
	@if [ -n "$(CLI_PROP_PKGS)" ]; then cd cmd/schedcheck && $(GO) test -count=1 -run 'Prop|Law' $(CLI_PROP_PKGS) -rapid.checks=$(RAPID_CHECKS); fi

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# The hot paths against the instructions and allocations per operation
# committed in internal/benchguard/baseline.txt: more than 10% more fails.
# It needs valgrind (apt-get install -y valgrind); without it, outside CI,
# only the allocations are checked.
bench-guard:
	$(GO) run ./internal/benchguard

fuzz:
	@for p in $$($(GO) list ./... ./cmd/schedcheck/...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$p | grep '^Fuzz'); do \
	    $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$p || exit 1; \
	  done; \
	done

# staticcheck and benchstat are pinned here and run with go run pkg@version,
# so that no tool enters the library's go.mod (a user of recur downloads
# none of them).
STATICCHECK  = $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2
BENCHSTAT    = $(GO) run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da

# Every module of the workspace (go.work), for the tidy check.
MODULES     ?= $(shell $(GO) list -m -f '{{.Dir}}')

# internal/exhaustive: every type switch over the schedule variants names
# them all (make test runs it too, with the other tests).
# internal/layout: the module layout holds (no non-test package of the
# main module depends on a test library, no nested module imports its
# internal packages, the test kits are imported from tests only, and the
# copies of internal packages in cmd/schedcheck and in the adapters are
# the same as their originals).
lint: vet tidy
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) test -count=1 ./internal/exhaustive ./internal/layout
	@for d in $(MODULES); do \
	  echo "staticcheck: $$d"; \
	  (cd $$d && $(STATICCHECK) ./...) || exit 1; \
	done

# tidy fails when any module's go.mod or go.sum is not what go mod tidy
# would write. Each module is tidied on its own (GOWORK=off), as a user
# who depends on it sees it.
tidy:
	@for d in $(MODULES); do \
	  (cd $$d && GOWORK=off $(GO) mod tidy -diff >/dev/null) || { echo "$$d: go.mod is not tidy: run GOWORK=off go mod tidy there"; exit 1; }; \
	done

# standalone builds and vets (which compiles the tests) every module on its
# own, GOWORK=off, as a user who requires it sees it: the requirements of
# each go.mod, not the workspace's, must be enough. It then runs each
# module's tests the same way, with -short, but for the modules in
# STANDALONE_NO_TEST, whose tests start a server or a browser (PostgreSQL,
# redis-server, Chromium): make test runs those once, with GOWORK=off but
# for the browser's, which builds the CLI in the workspace.
STANDALONE_NO_TEST ?= pgretry redisretry cmd/schedcheck/playground/browsertest
standalone:
	@for d in $(MODULES); do \
	  echo "GOWORK=off: $$d"; \
	  (cd $$d && GOWORK=off $(GO) build ./... && GOWORK=off $(GO) vet ./...) || exit 1; \
	done
	@for d in $(MODULES); do \
	  rel=$${d#$(CURDIR)}; rel=$${rel#/}; \
	  case " $(STANDALONE_NO_TEST) " in *" $$rel "*) echo "GOWORK=off: $$d: tests in make test"; continue;; esac; \
	  echo "GOWORK=off go test -short: $$d"; \
	  (cd $$d && GOWORK=off $(GO) test -count=1 -short ./...) || exit 1; \
	done

cover:
	$(GO) test -coverprofile=cover.out ./...
	$(GO) tool cover -func=cover.out | tail -1

# cmd/schedcheck/ is a module of its own, with the playground in it (the
# CLI's requirements, x/image and goleak, stay out of the library's
# go.mod), so ./... above never enters it; vet and props take it in.
cli-test:
	cd cmd/schedcheck && $(GO) test -race -count=1 ./...

# bench/ is a module of its own (the peers it measures stay out of the main
# go.mod), so ./... above never enters it: its tests run here, without
# benchmarks.
bench-test:
	cd bench && $(GO) vet ./... && $(GO) test -count=1 ./...

# configtest/ is a test-only module (the config libraries it reads
# parse.Policy with, viper, koanf, gopkg.in/yaml.v3 and the others, stay
# out of the main go.mod); it also compiles the snippets of
# docs/language.md that import them.
config-test:
	cd configtest && $(GO) vet ./... && $(GO) test -count=1 ./...

# failuretable/ is a test-only module that imports every adapter: its one
# test checks docs/failures.md, cell by cell, against each adapter's
# classifier.
failure-test:
	cd failuretable && $(GO) vet ./... && $(GO) test -count=1 ./...

# capi/ is the C ABI, a module of its own so that the main module stays
# free of cgo (docs/c.md). Its tests build librecur.so and librecur.a into
# a temporary directory, run test/recur_test.c against each under
# AddressSanitizer with the system cc, and the Python example with
# python3; with CI=true a missing cc or python3 fails them. -race covers
# the Go side (a library built with -race cannot be loaded by a C
# program, so the C test runs without it).
capi-test:
	cd capi && $(GO) vet ./... && $(GO) test -race -count=1 ./...

# grpcretry/ is a module of its own too (google.golang.org/grpc stays out
# of the main go.mod); its tests run against real servers on loopback.
grpc-test:
	cd grpcretry && $(GO) vet ./... && $(GO) test -race -count=1 ./...

# pgretry/ is a module of its own (pgx stays out of the main go.mod); its
# tests start PostgreSQL from /usr/lib/postgresql/*/bin (Debian's
# postgresql package, which .ci/run installs) and fail without it when
# CI=true.
pg-test:
	cd pgretry && GOWORK=off $(GO) vet ./... && GOWORK=off $(GO) test -race -count=1 ./...

# mongorecur/ is a module of its own (the MongoDB driver stays out of the
# main go.mod); its tests run FerretDB, a MongoDB wire server, embedded in
# the test process over SQLite in a temporary directory, so nothing is
# installed. With CI=true a server that cannot start fails the tests.
mongo-test:
	cd mongorecur && $(GO) vet ./... && $(GO) test -race -count=1 ./...

# h3retry/ is a module of its own (quic-go stays out of the main go.mod);
# its tests run quic-go's HTTP/3 server on loopback UDP in the test
# process, with a certificate the tests make, so nothing is installed.
h3-test:
	cd h3retry && $(GO) vet ./... && $(GO) test -race -count=1 ./...

# redisretry/ and natsretry/ are modules of their own (go-redis, nats.go
# and the embedded nats-server stay out of the main go.mod). redisretry's
# tests start /usr/bin/redis-server on a free loopback port (.ci/run
# installs it); natsretry's run the NATS server in the test process.
redis-test:
	cd redisretry && GOWORK=off $(GO) vet ./... && GOWORK=off $(GO) test -race -count=1 ./...
	cd redisretry && GOWORK=off $(GO) test -count=1 -run TestFleetOfProcesses ./redisbreaker

nats-test:
	cd natsretry && $(GO) vet ./... && $(GO) test -race -count=1 ./...

# otelrecur/ is a module of its own (the OpenTelemetry API and, for its
# tests, the SDK stay out of the main go.mod); its tests run httpretry
# against a server on loopback.
otel-test:
	cd otelrecur && $(GO) vet ./... && $(GO) test -race -count=1 ./...

# promrecur/ is a module of its own (client_golang stays out of the main
# go.mod). Its tests scrape /metrics over HTTP from loopback servers, and
# check the dashboard's PromQL with promtool (Debian's prometheus package,
# which .ci/run installs).
prom-test:
	cd promrecur && $(GO) vet ./... && $(GO) test -race -count=1 ./...

# recur against its peers, side by side: -count 10 and benchstat, one
# column per library. The raw numbers stay in bench/bench.txt. The breaker
# and budget rows run again at -cpu 1 (their rows without the -N suffix).
bench-peers: SHELL := /bin/bash
bench-peers: .SHELLFLAGS := -o pipefail -c
bench-peers:
	cd bench && $(GO) test -run '^$$' -bench . -benchmem -count 10 ./... | tee bench.txt
	cd bench && $(GO) test -run '^$$' -bench '^Benchmark(Breaker|Budget)' -benchmem -count 10 -cpu 1 . | tee -a bench.txt
	cd bench && $(BENCHSTAT) -col /lib bench.txt

# The playground (docs/playground.md). Its WebAssembly program and the Go
# toolchain's wasm_exec.js are build outputs, never committed: schedcheck
# serve builds them on first use, from the source it was built from, into
# the user cache (recur/playground under $XDG_CACHE_HOME or ~/.cache), and
# Go's build cache makes a rebuild of unchanged source quick.
# wasm builds them there the same way (playground.Builder) and prints where.
wasm:
	$(GO) run ./cmd/schedcheck/playground/site -wasm-only

# The page as a static folder for any web host, with the program built as
# wasm builds it.
SITE ?= site
site:
	$(GO) run ./cmd/schedcheck/playground/site -o $(SITE)

# cmd/schedcheck/playground/browsertest is a module of its own (chromedp
# stays out of the go.mod of recur and of schedcheck): it drives headless
# Chromium against schedcheck serve, which builds this tree's program into
# the user cache, outside the tree.
# In the workspace: the tests build the CLI from the repository's root,
# which only go.work joins to its module (standalone builds and vets this
# module with GOWORK=off).
browser-test:
	cd cmd/schedcheck/playground/browsertest && $(GO) vet ./... && $(GO) test -count=1 ./...

# docs/playground.png for the README, and the figures of docs/benchmarks.md.
screenshot:
	cd cmd/schedcheck/playground/browsertest && $(GO) run ./cmd/shoot -o ../../../../docs/playground.png
