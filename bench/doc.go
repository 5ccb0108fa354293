// Package bench measures recur against the Go retry libraries users compare
// it with: cenkalti/backoff v5, avast/retry-go v4, sethvargo/go-retry,
// failsafe-go, sony/gobreaker v2 and hashicorp/go-retryablehttp.
//
// It is a Go module of its own (github.com/recur-go/recur/bench, with a
// replace directive pointing at the repository root), so the peers it
// measures never enter the main module's go.mod.
//
// Every benchmark has one sub-benchmark per library, named lib=NAME, so
// that benchstat prints the libraries side by side:
//
//	cd bench && go test -run '^$' -bench . -benchmem -count 10 ./... | tee bench.txt
//	go run golang.org/x/perf/cmd/benchstat@latest -col /lib bench.txt
//
// (make bench-peers at the repository root does both.) Each library is
// configured to do the same work as recur, and the comment beside each
// sub-benchmark says how; where a library cannot express the work exactly,
// the comment says what was used instead.
//
// What is here:
//
//   - delay_test.go: one delay computation, exponential 100ms ×2 capped at
//     10s with full jitter (BenchmarkDelay).
//   - edges: what each library's delay does after 100, 10 000 and 10⁷ steps
//     with no cap and with a cap at the largest Duration, and with a zero
//     base; cmd/edges prints it as a markdown table.
//   - defaults: each peer's default retry policy written as a recur
//     schedule; cmd/outcomes runs them through the contention simulator
//     (package storm) and prints a markdown table.
//   - runners_test.go: a call that succeeds at once, with a direct call as
//     the floor (BenchmarkFirstTry); three failures then success with no
//     wait (BenchmarkThreeFailures); the marginal cost of one zero-delay
//     retry (BenchmarkZeroDelayRetry).
//   - breaker_test.go: breaker admission + record on the closed path,
//     serial and under RunParallel (BenchmarkBreakerClosed,
//     BenchmarkBreakerClosedParallel; make bench-peers runs them at
//     the default GOMAXPROCS and again at -cpu 1).
//   - budget_test.go: recur's retry budgets' checks, which no peer has
//     (BenchmarkBudgetCall, BenchmarkBudgetRetryCheck).
//   - outage: a retry-storm scenario, a dependency down for 4 s
//     under steady load, with clients retrying through recur's runner with
//     and without each budget and a breaker, on virtual time;
//     cmd/retrystorm prints it as a markdown table.
//
// Still to come, from the HTTP issue (same lib=NAME naming): an HTTP GET
// through each retrying client against a loopback server vs plain
// http.Client (http_test.go).
package bench
