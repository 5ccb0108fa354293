package budget_test

import (
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
