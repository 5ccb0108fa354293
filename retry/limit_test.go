package retry_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

var errConflict = errors.New("conflict")

// TestErrorLimitsRetryGoVectors reproduces avast/retry-go's
// TestAttemptsForError (AttemptsForError(3, os.ErrInvalid) inside
// Attempts(5): 3 attempts) and the two-error variant of its v5 fork's
// TestAttemptsForError (errMock at most 2, errAnotherMock 3, MaxAttempts(5),
// errors alternating from errMock: 3 attempts, ending on errMock).
func TestErrorLimitsRetryGoVectors(t *testing.T) {
	errMock, errAnother := errors.New("mock"), errors.New("another mock")
	tests := []struct {
		name   string
		limits []retry.ErrorLimit
		errs   func(n int) error // the error of attempt n, from 1
		want   int
		last   error
	}{
		{"one error", []retry.ErrorLimit{{Err: os.ErrInvalid, Attempts: 3}}, func(int) error { return os.ErrInvalid }, 3, os.ErrInvalid},
		{"alternating errors", []retry.ErrorLimit{{Err: errMock, Attempts: 2}, {Err: errAnother, Attempts: 3}},
			func(n int) error {
				if n%2 == 1 {
					return errMock
				}
				return errAnother
			}, 3, errMock},
		{"another error keeps the schedule's bound", []retry.ErrorLimit{{Err: os.ErrInvalid, Attempts: 3}}, func(int) error { return errConflict }, 5, errConflict},
		{"a wrapped error matches", []retry.ErrorLimit{{Err: errConflict, Attempts: 2}}, func(n int) error { return fmt.Errorf("attempt %d: %w", n, errConflict) }, 2, errConflict},
		{"one attempt: never retried", []retry.ErrorLimit{{Err: errConflict, Attempts: 1}}, func(int) error { return errConflict }, 1, errConflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := retry.Options{Caps: retry.Caps{Clock: clockcap.Virtual(epoch)}, ErrorLimits: tt.limits}
			n := 0
			_, err := retry.Retry(context.Background(), o, schedule.Times{N: 5}, func(context.Context) (int, error) {
				n++
				return n, tt.errs(n)
			})
			if n != tt.want {
				t.Errorf("attempts = %d, want %d", n, tt.want)
			}
			e := asError(t, err)
			if diff := cmp.Diff(retry.Error{Attempts: tt.want, Reason: retry.Exhausted}, retry.Error{Attempts: e.Attempts, Reason: e.Reason}); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if !errors.Is(err, tt.last) {
				t.Errorf("err = %v, want one wrapping %v", err, tt.last)
			}
		})
	}
}

// TestErrorLimitsRecover: a limit counts the attempts that matched it,
// not those in a row, and a success ends the call as ever.
func TestErrorLimitsRecover(t *testing.T) {
	o := retry.Options{Caps: retry.Caps{Clock: clockcap.Virtual(epoch)}, ErrorLimits: []retry.ErrorLimit{{Err: errConflict, Attempts: 2}}}
	errs := []error{errConflict, errFlaky, errFlaky, nil}
	n := 0
	v, err := retry.Retry(context.Background(), o, schedule.Times{N: 5}, func(context.Context) (int, error) {
		n++
		return n, errs[n-1]
	})
	if v != 4 || err != nil {
		t.Errorf("Retry = %d, %v; want 4, nil", v, err)
	}
}

func TestErrorLimitsChecked(t *testing.T) {
	many := make([]retry.ErrorLimit, retry.MaxErrorLimits+1)
	for i := range many {
		many[i] = retry.ErrorLimit{Err: errConflict, Attempts: 1}
	}
	for name, ls := range map[string][]retry.ErrorLimit{
		"nil Err":       {{Attempts: 2}},
		"zero attempts": {{Err: errConflict}},
		"too many":      many,
	} {
		o := retry.Options{ErrorLimits: ls}
		if o.Check() == nil {
			t.Errorf("%s: Check() = nil", name)
		}
		called := false
		_, err := retry.Retry(context.Background(), o, schedule.Times{N: 3}, func(context.Context) (int, error) { called = true; return 0, nil })
		if err == nil || called {
			t.Errorf("%s: Retry = %v, op called %v; want an error before the first attempt", name, err, called)
		}
	}
}

// ExampleErrorLimit gives a conflict three attempts in a policy of five.
func ExampleErrorLimit() {
	o := retry.Options{
		Caps:        retry.Caps{Clock: clockcap.Virtual(epoch)},
		ErrorLimits: []retry.ErrorLimit{{Err: errConflict, Attempts: 3}},
	}
	n := 0
	_, err := retry.Retry(context.Background(), o, schedule.Times{N: 5}, func(context.Context) (int, error) {
		n++
		return 0, fmt.Errorf("update row: %w", errConflict)
	})
	fmt.Println(n, err)
	// Output:
	// 3 retry: gave up after 3 attempts (schedule exhausted): update row: conflict
}

// TestDiscardThenCancel: a caller that leaves while the runner discards a
// result (an HTTP body drained slowly) gets no further attempt.
func TestDiscardThenCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	judge := func(int, error) retry.Judgement { return retry.Judgement{Verdict: verdict.Transient} }
	v, err := retry.Do(ctx, retry.Options{Caps: retry.Caps{Clock: clockcap.Virtual(epoch)}}, schedule.Times{N: 5}, judge,
		func(int) { cancel() }, func(context.Context) (int, error) { n++; return n, nil })
	if n != 1 || v != 0 {
		t.Errorf("attempts %d, value %d; want 1 attempt and the zero value", n, v)
	}
	if e := asError(t, err); e.Reason != retry.Canceled || e.Attempts != 1 {
		t.Errorf("error %+v; want Canceled after 1 attempt", e)
	}
}
