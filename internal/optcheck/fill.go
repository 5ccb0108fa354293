package optcheck

import (
	"context"
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

// Fill sets every field of the struct p points to to a value that is not
// zero, so that Carries can see it: a second for a duration, a function
// that returns zeros for a hook, and a sample of retry.Caps,
// budget.Budget and retry.Observer. It fails t on a field of another
// type.
func Fill(t testing.TB, p any) {
	t.Helper()
	v := reflect.ValueOf(p).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		s, ok := sample(f.Type())
		if !ok {
			t.Fatalf("optcheck.Fill has no value for %s.%s of type %s", v.Type().Name(), v.Type().Field(i).Name, f.Type())
		}
		f.Set(s)
	}
}

// samples are Fill's values of the types that are not durations or
// functions.
var samples = []any{
	retry.Caps{Clock: clockcap.Real(), Random: randcap.Seeded(1), Logger: slog.New(slog.DiscardHandler)},
	anyBudget{},
	retry.ObserverFunc(func(context.Context, retry.Event) {}),
}

// sample returns Fill's value of type t.
func sample(t reflect.Type) (reflect.Value, bool) {
	switch {
	case t == reflect.TypeFor[time.Duration]():
		return reflect.ValueOf(time.Second), true
	case t.Kind() == reflect.Bool:
		return reflect.ValueOf(true).Convert(t), true
	case t.Kind() == reflect.Func:
		return reflect.MakeFunc(t, func([]reflect.Value) []reflect.Value {
			out := make([]reflect.Value, t.NumOut())
			for i := range out {
				out[i] = reflect.Zero(t.Out(i))
			}
			return out
		}), true
	}
	for _, s := range samples {
		if sv := reflect.ValueOf(s); sv.Type().AssignableTo(t) {
			return sv, true
		}
	}
	return reflect.Value{}, false
}

// anyBudget is a budget.Budget that allows everything.
type anyBudget struct{}

func (anyBudget) Request() bool          { return true }
func (anyBudget) AllowRetry() bool       { return true }
func (anyBudget) Record(verdict.Verdict) {}
func (anyBudget) Stats() budget.Stats    { return budget.Stats{} }
