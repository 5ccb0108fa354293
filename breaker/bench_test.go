package breaker_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/breaker/breakertest"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

// The closed path: what every call through a healthy breaker pays. The
// breakers here use the real clock.

func benchClosed(b *testing.B, br *breaker.Breaker) {
	b.ReportAllocs()
	for b.Loop() {
		p, err := br.Allow()
		if err != nil {
			b.Fatal(err)
		}
		br.Record(&p, verdict.Success)
	}
}

func benchClosedParallel(b *testing.B, br *breaker.Breaker) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			p, err := br.Allow()
			if err != nil {
				b.Fatal(err)
			}
			br.Record(&p, verdict.Success)
		}
	})
}

func mustNew(b *testing.B, c breaker.Config) *breaker.Breaker {
	br, err := breaker.New(c)
	if err != nil {
		b.Fatal(err)
	}
	return br
}

func BenchmarkClosed(b *testing.B) { benchClosed(b, mustNew(b, breaker.Config{})) }

func BenchmarkClosedParallel(b *testing.B) { benchClosedParallel(b, mustNew(b, breaker.Config{})) }

// Exact reads the clock on every success, as a breaker without batching
// would: the price the batched window saves.
func BenchmarkClosedExact(b *testing.B) {
	br, _ := breaker.NewExact(breaker.Config{})
	benchClosed(b, br)
}

func BenchmarkClosedExactParallel(b *testing.B) {
	br, _ := breaker.NewExact(breaker.Config{})
	benchClosedParallel(b, br)
}

// Slow-call detection times each call: two clock reads.
func BenchmarkClosedSlowCall(b *testing.B) {
	benchClosed(b, mustNew(b, breaker.Config{SlowCall: 1 << 40}))
}

// One call in 100 fails (not enough to open): the failure path takes the
// lock and reads the clock.
func BenchmarkClosedOnePercentFailing(b *testing.B) {
	br := mustNew(b, breaker.Config{ConsecutiveFailures: -1, FailureRate: 100})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			p, _ := br.Allow()
			v := verdict.Success
			if i++; i%100 == 0 {
				v = verdict.Transient
			}
			br.Record(&p, v)
		}
	})
}

// An open breaker refusing calls: a clock read (is the open duration
// over?) and a shared error.
func BenchmarkRejectOpenParallel(b *testing.B) {
	br := mustNew(b, breaker.Config{ConsecutiveFailures: 1, OpenFor: schedule.Exponential{Base: time.Hour, FactorPct: 100, Cap: time.Hour}})
	p, _ := br.Allow()
	br.Record(&p, verdict.Failure)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := br.Allow(); err == nil {
				b.Fatal("admitted")
			}
		}
	})
}

// A forced-open breaker refusing calls: no clock, a shared error.
func BenchmarkRejectParallel(b *testing.B) {
	br := mustNew(b, breaker.Config{})
	br.ForceOpen()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := br.Allow(); err == nil {
				b.Fatal("admitted")
			}
		}
	})
}

func BenchmarkRegistryGetParallel(b *testing.B) {
	r, _ := breaker.NewRegistry(breaker.Config{}, 0)
	targets := []string{"https://a.example:443", "https://b.example:443", "https://c.example:443"}
	for _, t := range targets {
		r.Get(t)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			r.Get(targets[i%len(targets)])
			i++
		}
	})
}

// 10,000 new targets, each made on first Get: amortised copy-on-write
// keeps this linear in time and memory.
func BenchmarkRegistryNewTargets(b *testing.B) {
	targets := make([]string, 10_000)
	for i := range targets {
		targets[i] = fmt.Sprintf("https://host-%d.example:443", i)
	}
	b.ReportAllocs()
	for b.Loop() {
		r, _ := breaker.NewRegistry(breaker.Config{}, len(targets))
		for _, t := range targets {
			r.Get(t)
		}
	}
}

// The closed path of a breaker with a Config.Shared store against one
// without: the same atomics, since only the background flusher, every
// SharedFlush, reaches the store. Run the two alternately (see
// docs/benchmarks.md, Fleet).
func BenchmarkClosedFleet(b *testing.B) {
	for _, store := range []string{"none", "mem"} {
		b.Run("store="+store, func(b *testing.B) {
			br := fleetBreaker(b, store)
			benchClosed(b, br)
		})
	}
}

func BenchmarkClosedFleetParallel(b *testing.B) {
	for _, store := range []string{"none", "mem"} {
		b.Run("store="+store, func(b *testing.B) {
			br := fleetBreaker(b, store)
			benchClosedParallel(b, br)
		})
	}
}

func fleetBreaker(b *testing.B, store string) *breaker.Breaker {
	c := breaker.Config{Name: "api"}
	if store == "mem" {
		c.Shared = breakertest.NewMemStore(nil)
	}
	br := mustNew(b, c)
	b.Cleanup(func() { br.Close() })
	return br
}

// BenchmarkHTTP is the service level: a breaker in front of a real GET to
// a loopback httptest server (net/http on 127.0.0.1), through Do, against
// the same GET with no breaker, from one goroutine and (Parallel) from
// GOMAXPROCS goroutines sharing the breaker and the client. Run it with
// -cpu 1,2: what the breaker's closed path costs is within the noise of
// a network call, on one core or two.
func BenchmarkHTTP(b *testing.B) { benchHTTP(b, false) }

func BenchmarkHTTPParallel(b *testing.B) { benchHTTP(b, true) }

func benchHTTP(b *testing.B, parallel bool) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "hello")
	}))
	defer srv.Close()
	for _, with := range []string{"none", "recur"} {
		b.Run("breaker="+with, func(b *testing.B) {
			tr := &http.Transport{MaxIdleConnsPerHost: 64}
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr}
			get := func(ctx context.Context) (int, error) {
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
				if err != nil {
					return 0, err
				}
				resp, err := client.Do(req)
				if err != nil {
					return 0, err
				}
				defer resp.Body.Close()
				_, err = io.Copy(io.Discard, resp.Body)
				return resp.StatusCode, err
			}
			call := get
			if with == "recur" {
				br := mustNew(b, breaker.Config{Name: srv.URL})
				judge := func(code int, err error) verdict.Verdict {
					if err != nil || code >= 500 {
						return verdict.Failure
					}
					return verdict.Success
				}
				call = func(ctx context.Context) (int, error) { return breaker.Do(ctx, br, judge, get) }
			}
			ctx := context.Background()
			b.ReportAllocs()
			if !parallel {
				for b.Loop() {
					if code, err := call(ctx); err != nil || code != http.StatusOK {
						b.Fatal(code, err)
					}
				}
				return
			}
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if code, err := call(ctx); err != nil || code != http.StatusOK {
						b.Error(code, err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkRegistryBytes reports the heap a Registry of 10,000 targets
// holds, per target (B/target): each target's breaker and its entry in
// the registry's map, measured with runtime.MemStats after a collection,
// with every breaker closed and (state=opened) with every breaker opened
// once by 5 failures. The target names are made beforehand and not
// counted.
func BenchmarkRegistryBytes(b *testing.B) {
	const n = 10_000
	targets := make([]string, n)
	for i := range targets {
		targets[i] = fmt.Sprintf("https://host-%d.example:443", i)
	}
	for _, state := range []string{"closed", "opened"} {
		b.Run("state="+state, func(b *testing.B) {
			var total float64
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				r, _ := breaker.NewRegistry(breaker.Config{}, n)
				for _, t := range targets {
					br := r.Get(t)
					for i := 0; state == "opened" && i < 5; i++ {
						p, _ := br.Allow()
						br.Record(&p, verdict.Failure)
					}
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				runtime.KeepAlive(r)
				total += float64(after.HeapAlloc-before.HeapAlloc) / n
			}
			b.ReportMetric(total/float64(b.N), "B/target")
		})
	}
}
