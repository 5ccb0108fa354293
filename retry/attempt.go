package retry

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
)

// Attempt describes the attempt in progress, as op sees it through
// AttemptOf.
type Attempt struct {
	// Number counts the attempts of the call, from 1 for the first.
	Number int
	// Last is true when the schedule allows no attempt after this one,
	// as far as schedule.Bounds can tell without running it; a deadline,
	// a budget or a breaker may still end the call sooner. The first
	// attempt, which gets the caller's own context, always sees false;
	// from the second on, the first AttemptOf of a call pays for one
	// schedule.Bounds (a walk of the schedule that may allocate).
	Last bool

	deadline time.Time // the context's, zero for none
	clock    clockcap.Clock
}

// Left returns the time left before the context's deadline, read on the
// runner's Options.Clock (on the first attempt, which the runner makes
// without reading a clock, on the real clock), and false when the context
// has no deadline. It is never negative.
func (a Attempt) Left() (time.Duration, bool) {
	if a.deadline.IsZero() {
		return 0, false
	}
	c := a.clock
	if c == nil {
		c = clockcap.Real()
	}
	return max(a.deadline.Sub(c.Now()), 0), true
}

// attemptKey is the context key of the attempt in progress.
type attemptKey struct{}

// AttemptOf returns the attempt in progress of the runner that passed ctx
// to op (Retry, RetryWhile, RetryIf, Do, Hedge, where it is the copy's
// number): Number 1 for the first attempt,
// and for any context that no runner made. Apart from the one
// schedule.Bounds of Last, it allocates nothing.
//
// The first attempt gets the caller's own context, so that a call that
// succeeds at once costs nothing; the later ones get a context that the
// runner updates before each attempt. Read it during the attempt: a
// goroutine that outlives its attempt sees a later attempt's number.
func AttemptOf(ctx context.Context) Attempt {
	if c, ok := ctx.Value(attemptKey{}).(*attemptCtx); ok {
		d, _ := c.Context.Deadline() // the caller's, as the runner sees it
		return Attempt{Number: c.number, Last: c.last(), deadline: d, clock: c.clock}
	}
	d, _ := ctx.Deadline()
	return Attempt{Number: 1, deadline: d}
}

// attemptCtx is the context of the second and later attempts: the
// caller's, plus the attempt in progress.
type attemptCtx struct {
	context.Context
	number int // of the attempt in progress
	clock  clockcap.Clock
	run    *interp.Run  // the call's, for its schedule's Bounds in Last
	max    atomic.Int64 // schedule.Bounds' MaxAttempts once read, 0 before
}

// Value returns the attempt in progress for attemptKey and asks the
// caller's context for any other key.
func (c *attemptCtx) Value(key any) any {
	if key == (attemptKey{}) {
		return c
	}
	return c.Context.Value(key)
}

// last reports whether the schedule allows no attempt after this one. It
// reads schedule.Bounds once per call, the first time op asks, so that a
// call whose op never asks does not pay for it.
func (c *attemptCtx) last() bool {
	n := c.max.Load()
	if n == 0 {
		n = int64(schedule.Bounds(c.run.Schedule()).MaxAttempts)
		c.max.Store(n)
	}
	return int64(c.number) >= n
}
