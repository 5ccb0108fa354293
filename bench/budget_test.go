package bench

import (
	"testing"

	"github.com/failsafe-go/failsafe-go/adaptivethrottler"
	fsbudget "github.com/failsafe-go/failsafe-go/budget"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/verdict"
)

// The budgets' checks. Each recur budget has its defaults and the real
// clock, and is shared by GOMAXPROCS goroutines (b.RunParallel), as a
// per-target budget is. Two failsafe-go policies sit beside them where
// they do the nearest job: its budget (a cap on the share of in-flight
// executions that are retries, not on their ratio to recent calls) beside
// the SRE retry ratio, and its adaptive throttler (rejection rate from the
// failure rate over a minute) beside SRE adaptive throttling. Neither
// peer has a token bucket.
var budgetKinds = []struct {
	name   string
	config budget.Config
}{
	{"tokenbucket", budget.TokenBucketConfig{}}, // gRPC A6: 10 tokens, 0.1 per success
	{"ratio", budget.RatioConfig{}},             // SRE retry ratio: 10% over 10 s, floor 1/s
	{"adaptive", budget.AdaptiveConfig{}},       // SRE adaptive throttling: K = 2 over 2 min
}

// failsafeBudget is failsafe-go's budget as its executor uses it: the
// methods are on the unexported type behind budget.Budget.
type failsafeBudget interface {
	RecordExecution()
	ReleaseExecution()
	TryAcquirePermit() bool
	ReleasePermit()
}

// BenchmarkBudgetCall is what every call pays: Request before its first
// attempt, Record(Success) after it. failsafe-go's adaptive throttler:
// TryAcquirePermit, RecordSuccess.
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
	b.Run("budget=adaptive/lib=failsafe", func(b *testing.B) {
		th := adaptivethrottler.NewWithDefaults[any]()
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if !th.TryAcquirePermit() {
					b.Error("call refused")
					return
				}
				th.RecordSuccess()
			}
		})
	})
}

// BenchmarkBudgetRetryCheck is what a retry pays on top: AllowRetry, the
// question asked before each retry's wait. Each op is a call (Request)
// and its retry check, so that the ratio budgets keep saying yes to some.
// failsafe-go's budget: RecordExecution for the call, TryAcquirePermit
// for the retry (and ReleasePermit when it got one), ReleaseExecution.
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
	b.Run("budget=ratio/lib=failsafe", func(b *testing.B) {
		bu := fsbudget.New().(failsafeBudget)
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				bu.RecordExecution()
				if bu.TryAcquirePermit() {
					bu.ReleasePermit()
				}
				bu.ReleaseExecution()
			}
		})
	})
}

func newBudget(tb testing.TB, c budget.Config) budget.Budget {
	tb.Helper()
	bu, err := c.New()
	if err != nil {
		tb.Fatal(err)
	}
	return bu
}
