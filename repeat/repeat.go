package repeat

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// ErrDeadline is the error Repeat returns when the next run would start at
// or after the context's deadline: Repeat returns at once rather than wait
// into it. errors.Is(ErrDeadline, context.DeadlineExceeded) holds.
var ErrDeadline = fmt.Errorf("repeat: next run would start after the deadline: %w", context.DeadlineExceeded)

var (
	errNilOp      = errors.New("repeat: nil operation")
	errRunTimeout = errors.New("repeat: negative Options.RunTimeout")
)

// Repeat runs op, then asks schedule s after each success whether and when
// to run it again. It returns the number of runs that succeeded and the
// error that stopped it: nil when the schedule ended; op's error,
// unchanged, when a run failed; ErrDeadline when the next run would start
// at or after ctx's deadline; ctx's error when ctx ended during a wait.
//
// The first run is always made, unless the schedule or the options are
// invalid (see below) or ctx is already done, in which case Repeat returns
// 0 and ctx's error without calling op; Times{N: 3} makes three runs in all, and
// Spaced{Every: time.Minute} runs once a minute on a grid anchored at the
// first run's start, so a slow run does not make it drift. op receives ctx,
// or a context derived from it when o.RunTimeout is set.
//
// The schedule and the options are checked before the first run: an
// invalid schedule (nil included), a nil op or a negative RunTimeout
// returns 0 and an error at once, and op is not called. For
// the schedule, the error wraps the *schedule.Error of schedule.Validate,
// which errors.As finds.
func Repeat(ctx context.Context, o Options, s schedule.Schedule, op func(context.Context) error) (int, error) {
	timed, valid := interp.Check(s)
	switch {
	case op == nil:
		return 0, errNilOp
	case !valid:
		return 0, fmt.Errorf("repeat: invalid schedule: %w", schedule.Validate(s))
	case o.RunTimeout < 0:
		return 0, errRunTimeout
	case ctx.Err() != nil:
		return 0, ctx.Err() // a done context never reaches op
	}
	clock := o.Clock
	if clock == nil {
		clock = clockcap.Real()
	}
	var t0 time.Time
	if timed {
		t0 = clock.Now()
	}
	if err := run(ctx, o.RunTimeout, op); err != nil {
		return 0, err
	}
	random := o.Random
	if random == nil {
		random = randcap.Real()
	}
	r := interp.Start(s, random.Seed()) // s is valid: checked above
	deadline, hasDeadline := ctx.Deadline()
	var start, now time.Duration // of the last run, since t0, when timed
	for runs := 1; ; runs++ {
		var end time.Time
		if timed || hasDeadline {
			end = clock.Now()
		}
		if timed {
			now = end.Sub(t0)
		}
		if err := ctx.Err(); err != nil {
			return runs, err
		}
		if hasDeadline && !end.Before(deadline) {
			return runs, ErrDeadline
		}
		wait, ok := r.Next(start, now)
		if !ok {
			return runs, nil
		}
		if hasDeadline && !end.Add(wait).Before(deadline) {
			return runs, ErrDeadline
		}
		if o.Observer != nil {
			o.Observer.Observe(ctx, retry.Event{Kind: retry.Retrying, Attempt: runs, Delay: wait})
		}
		if err := clock.Sleep(ctx, wait); err != nil {
			return runs, err
		}
		if timed {
			start = clock.Now().Sub(t0)
		}
		if err := run(ctx, o.RunTimeout, op); err != nil {
			return runs, err
		}
	}
}

// run makes one run, under the per-attempt timeout if there is one.
func run(ctx context.Context, timeout time.Duration, op func(context.Context) error) error {
	if timeout == 0 {
		return op(ctx)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return op(ctx)
}
