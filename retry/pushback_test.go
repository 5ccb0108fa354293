package retry_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// noPush is a Pushback that has no value, wrapping err.
type noPush struct{ err error }

func (e noPush) Error() string                   { return "no pushback" }
func (e noPush) Unwrap() error                   { return e.err }
func (noPush) RetryAfter() (time.Duration, bool) { return 0, false }

// noPushJoin is a Pushback that has no value, wrapping several errors.
type noPushJoin struct{ errs []error }

func (e noPushJoin) Error() string                   { return "no pushback" }
func (e noPushJoin) Unwrap() []error                 { return e.errs }
func (noPushJoin) RetryAfter() (time.Duration, bool) { return 0, false }

// TestPushbackTree: the wait is the first pushback with a value in the
// error's tree, in errors.As's pre-order, whatever wraps it.
func TestPushbackTree(t *testing.T) {
	leaf := errors.New("leaf")
	after := func(d time.Duration) error { return retry.After(leaf, d) }
	tests := []struct {
		name string
		err  error
		want time.Duration // the wait before the second attempt; the schedule's is 1ms
	}{
		{"leaf", leaf, time.Millisecond},
		{"after", after(time.Second), time.Second},
		{"wrapped", fmt.Errorf("op: %w", after(2*time.Second)), 2 * time.Second},
		{"joined, second", errors.Join(leaf, after(3*time.Second)), 3 * time.Second},
		{"joined, first wins", errors.Join(after(4*time.Second), after(time.Hour)), 4 * time.Second},
		{"no value, wrapping one", noPush{after(5 * time.Second)}, 5 * time.Second},
		{"no value, wrapping none", noPush{leaf}, time.Millisecond},
		{"no value, joining", noPushJoin{[]error{leaf, after(6 * time.Second)}}, 6 * time.Second},
		{"shorter than the schedule", after(time.Microsecond), time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := clockcap.Virtual(time.Unix(0, 0))
			n := 0
			_, err := retry.Retry(context.Background(), retry.Options{Caps: retry.Caps{Clock: clock}}, schedule.Intersect{A: schedule.Spaced{Every: time.Millisecond}, B: schedule.Times{N: 2}},
				func(context.Context) (int, error) {
					if n++; n == 1 {
						return 0, tt.err
					}
					return n, nil
				})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]time.Duration{tt.want}, clock.Sleeps()); diff != "" {
				t.Errorf("sleeps (-want +got):\n%s", diff)
			}
		})
	}
}
