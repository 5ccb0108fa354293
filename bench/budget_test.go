package bench

import (
	"testing"

	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/verdict"
)

// The budget's checks, recur only: none of the peers has a retry budget of
// the same kind (failsafe-go's budget package bounds concurrent retries, not
// their ratio to calls). Each budget has its defaults and the real clock,
// and is shared by GOMAXPROCS goroutines (b.RunParallel), as a per-target
// budget is.
var budgetKinds = []struct {
	name   string
	config budget.Config
}{
	{"tokenbucket", budget.TokenBucketConfig{}}, // gRPC A6: 10 tokens, 0.1 per success
	{"ratio", budget.RatioConfig{}},             // SRE retry ratio: 10% over 10 s, floor 1/s
	{"adaptive", budget.AdaptiveConfig{}},       // SRE adaptive throttling: K = 2 over 2 min
}

// BenchmarkBudgetCall is what every call pays: Request before its first
// attempt, Record(Success) after it.
func BenchmarkBudgetCall(b *testing.B) {
	for _, k := range budgetKinds {
		b.Run("budget="+k.name+"/lib=recur", func(b *testing.B) {
			bu := newBudget(b, k.config)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if !bu.Request() {
						b.Error("call refused")
						return
					}
					bu.Record(verdict.Success)
				}
			})
		})
	}
}

// BenchmarkBudgetRetryCheck is what a retry pays on top: AllowRetry, the
// question asked before each retry's wait. Each op is a call (Request)
// and its retry check, so that the ratio budgets keep saying yes to some.
func BenchmarkBudgetRetryCheck(b *testing.B) {
	for _, k := range budgetKinds {
		b.Run("budget="+k.name+"/lib=recur", func(b *testing.B) {
			bu := newBudget(b, k.config)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					bu.Request()
					bu.AllowRetry()
				}
			})
		})
	}
}

func newBudget(tb testing.TB, c budget.Config) budget.Budget {
	tb.Helper()
	bu, err := c.New()
	if err != nil {
		tb.Fatal(err)
	}
	return bu
}
