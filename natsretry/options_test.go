package natsretry

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/internal/optcheck"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/verdict"
)

type fakeBudget struct{}

func (fakeBudget) Request() bool          { return true }
func (fakeBudget) AllowRetry() bool       { return true }
func (fakeBudget) Record(verdict.Verdict) {}
func (fakeBudget) Stats() budget.Stats    { return budget.Stats{} }

// TestRunnerCarriesEveryField: runner copies each field of RetryOptions to
// the retry.Options field of the same name, and sets no other.
func TestRunnerCarriesEveryField(t *testing.T) {
	in := RetryOptions{
		Caps:           retry.Caps{Clock: clockcap.Real(), Random: randcap.Seeded(1), Logger: slog.New(slog.DiscardHandler)},
		AttemptTimeout: time.Second,
		OnRetry:        func(int, error, time.Duration, string) {},
		OnGiveUp:       func(*retry.Error) {},
		OnRecovered:    func(int, string) {},
		Budget:         fakeBudget{},
		Observer:       retry.ObserverFunc(func(context.Context, retry.Event) {}),
	}
	optcheck.Carries(t, in, in.runner())
}
