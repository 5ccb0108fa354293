package pgretry

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
)

// TestRunnerCarriesEveryField: runner copies each field of RetryOptions to
// the retry.Options field of the same name, and sets no other. (Filled by
// hand: optcheck.Fill has no value for a bool, Unthrottled.)
func TestRunnerCarriesEveryField(t *testing.T) {
	b, err := budget.NewTokenBucket(budget.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	in := RetryOptions{
		Caps:           retry.Caps{Clock: clockcap.Real(), Random: randcap.Seeded(1), Logger: slog.New(slog.DiscardHandler)},
		AttemptTimeout: time.Second,
		MaxPushback:    2 * time.Second,
		OnRetry:        func(int, error, time.Duration, string) {},
		OnGiveUp:       func(*retry.Error) {},
		OnRecovered:    func(int, string) {},
		Observer:       retry.ObserverFunc(func(context.Context, retry.Event) {}),
		Budget:         b,
		Unthrottled:    true,
	}
	optcheck.Carries(t, in, in.runner())
}
