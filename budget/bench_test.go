package budget_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/verdict"
)

// What a healthy call pays: Request, then Record(Success). The budgets use
// the real clock.
func benchHealthy(b *testing.B, c budget.Config) {
	bu, err := c.New()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if !bu.Request() {
				b.Fatal("refused")
			}
			bu.Record(verdict.Success)
		}
	})
}

// What a retry's check pays: AllowRetry (after a failure was recorded).
func benchRetryCheck(b *testing.B, c budget.Config) {
	bu, err := c.New()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			bu.Request()
			bu.AllowRetry()
		}
	})
}

func BenchmarkTokenBucketHealthy(b *testing.B) { benchHealthy(b, budget.TokenBucketConfig{}) }
func BenchmarkRatioHealthy(b *testing.B)       { benchHealthy(b, budget.RatioConfig{}) }
func BenchmarkAdaptiveHealthy(b *testing.B)    { benchHealthy(b, budget.AdaptiveConfig{}) }

func BenchmarkTokenBucketAllowRetry(b *testing.B) { benchRetryCheck(b, budget.TokenBucketConfig{}) }
func BenchmarkRatioAllowRetry(b *testing.B)       { benchRetryCheck(b, budget.RatioConfig{}) }
func BenchmarkAdaptiveAllowRetry(b *testing.B)    { benchRetryCheck(b, budget.AdaptiveConfig{}) }

// BenchmarkRegistryBytes reports the heap a Registry of 10,000 targets
// holds, per target (B/target), for each kind of budget: the budget and
// its entry in the registry's map, measured with runtime.MemStats after a
// collection. The target names are made beforehand and not counted.
func BenchmarkRegistryBytes(b *testing.B) {
	const n = 10_000
	targets := make([]string, n)
	for i := range targets {
		targets[i] = fmt.Sprintf("https://host-%d.example:443", i)
	}
	for _, k := range []struct {
		name string
		c    budget.Config
	}{
		{"tokenbucket", budget.TokenBucketConfig{}},
		{"ratio", budget.RatioConfig{}},
		{"adaptive", budget.AdaptiveConfig{}},
	} {
		b.Run("kind="+k.name, func(b *testing.B) {
			var total float64
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				r, _ := budget.NewRegistry(k.c, n)
				for _, t := range targets {
					r.Get(t)
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
