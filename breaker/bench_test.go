package breaker_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/recur-go/recur/breaker"
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
		c.Shared = breaker.NewMemStore(nil)
	}
	br := mustNew(b, c)
	b.Cleanup(func() { br.Close() })
	return br
}
