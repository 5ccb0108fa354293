package retry_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/retry"
)

// epoch is where virtual clocks start in tests without a deadline.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// future returns a virtual start an hour ahead of the real clock, so that a
// context deadline set relative to it lies in the real future too and only
// the runner's own check against the virtual clock can trip it.
func future() time.Time { return time.Now().Add(time.Hour) }

// step is one scripted attempt: how long it takes on the virtual clock and
// the error it returns (nil: success).
type step struct {
	took time.Duration
	err  error
}

// fail returns n instant steps that fail with err.
func fail(n int, err error) []step {
	s := make([]step, n)
	for i := range s {
		s[i].err = err
	}
	return s
}

// script is an operation that plays steps on a virtual clock and records
// when each attempt started. Attempt i returns the value i (from 1).
type script struct {
	clock  *clockcap.VirtualClock
	steps  []step
	starts []time.Duration
}

func (s *script) op(ctx context.Context) (int, error) {
	i := len(s.starts)
	s.starts = append(s.starts, s.clock.Elapsed())
	if i >= len(s.steps) {
		return i + 1, fmt.Errorf("script: unexpected attempt %d", i+1)
	}
	s.clock.Advance(s.steps[i].took)
	return i + 1, s.steps[i].err
}

// hookLog records the Retrying events of a run: attempt, error, delay and
// label.
type hookLog struct {
	attempts []int
	errs     []error
	delays   []time.Duration
	reasons  []string
}

// Observe records e if it is a Retrying event.
func (h *hookLog) Observe(_ context.Context, e retry.Event) {
	if e.Kind != retry.Retrying {
		return
	}
	h.attempts = append(h.attempts, e.Attempt)
	h.errs = append(h.errs, e.Err)
	h.delays = append(h.delays, e.Delay)
	h.reasons = append(h.reasons, e.Label)
}

// on returns an Observer that calls f for every event of kind k.
func on(k retry.EventKind, f func(retry.Event)) retry.Observer {
	return retry.ObserverFunc(func(_ context.Context, e retry.Event) {
		if e.Kind == k {
			f(e)
		}
	})
}

// asError returns err as a *retry.Error or fails the test.
func asError(t *testing.T, err error) *retry.Error {
	t.Helper()
	var e *retry.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *retry.Error", err, err)
	}
	return e
}

// pushErr is an error type of another package that carries a pushback.
type pushErr struct {
	d  time.Duration
	ok bool
}

func (e pushErr) Error() string                     { return fmt.Sprintf("push %v %v", e.d, e.ok) }
func (e pushErr) RetryAfter() (time.Duration, bool) { return e.d, e.ok }

var (
	errFatal   = errors.New("fatal")
	errTimeout = errors.New("timeout")
)
