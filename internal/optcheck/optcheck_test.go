package optcheck

import (
	"reflect"
	"testing"
	"time"

	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/retry"
)

// fn is an interface type that a function type implements, as
// retry.ObserverFunc implements retry.Observer.
type fn interface{ call() }

type fnFunc func()

func (f fnFunc) call() { f() }

type in struct {
	A int
	F func()
	I fn
}

type out struct {
	A, B int
	F    func()
	I    fn
}

func f() {}
func g() {}

var fi, gi fn = fnFunc(f), fnFunc(g)

// recorder is a testing.TB that records failures instead of reporting them.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }

func TestCarries(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   in
		out  out
		fail bool
	}{
		{"copied", in{1, f, fi}, out{A: 1, F: f, I: fi}, false},
		{"value lost", in{1, f, fi}, out{A: 2, F: f, I: fi}, true},
		{"other function", in{1, f, fi}, out{A: 1, F: g, I: fi}, true},
		{"interface lost", in{1, f, fi}, out{A: 1, F: f}, true},
		{"other function in the interface", in{1, f, fi}, out{A: 1, F: f, I: gi}, true},
		{"extra field set", in{1, f, fi}, out{A: 1, B: 1, F: f, I: fi}, true},
		{"input field zero", in{0, f, fi}, out{F: f, I: fi}, true},
	} {
		r := &recorder{TB: t}
		Carries(r, tc.in, tc.out)
		if r.failed != tc.fail {
			t.Errorf("%s: failed %v, want %v", tc.name, r.failed, tc.fail)
		}
	}
}

// Fill leaves no field of the kinds the options types have zero.
func TestFill(t *testing.T) {
	var opts struct {
		Caps     retry.Caps
		Timeout  time.Duration
		OnRetry  func(int, error) bool
		Budget   budget.Budget
		Observer retry.Observer
	}
	Fill(t, &opts)
	v := reflect.ValueOf(opts)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Errorf("Fill left %s zero", v.Type().Field(i).Name)
		}
	}
	if opts.OnRetry(1, nil) {
		t.Error("Fill's function returned true; want the zero result")
	}
}
