package natsretry

import (
	"log/slog"
	"reflect"
	"testing"
	"time"

	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
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
	}
	out := in.runner()
	iv, ov := reflect.ValueOf(in), reflect.ValueOf(out)
	set := map[string]bool{}
	for i := range iv.NumField() {
		name, f := iv.Type().Field(i).Name, iv.Field(i)
		if f.IsZero() {
			t.Fatalf("the test leaves RetryOptions.%s zero", name)
		}
		set[name] = true
		if !same(f, ov.FieldByName(name)) {
			t.Errorf("runner's %s is %v, want %v", name, ov.FieldByName(name), f)
		}
	}
	for i := range ov.NumField() {
		if name := ov.Type().Field(i).Name; !set[name] && !ov.Field(i).IsZero() {
			t.Errorf("runner sets %s, which RetryOptions does not have", name)
		}
	}
}

// same reports whether a and b hold the same value; functions are the
// same if they are the same code.
func same(a, b reflect.Value) bool {
	if a.Kind() == reflect.Func && b.Kind() == reflect.Func {
		return a.Pointer() == b.Pointer()
	}
	return b.IsValid() && a.Interface() == b.Interface()
}
