package retry

import (
	"context"
	"log/slog"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

// Retry calls op until it succeeds, retrying every error on schedule s. It
// is RetryWhile with a predicate that is always true.
func Retry[T any](ctx context.Context, o Options, s schedule.Schedule, op func(context.Context) (T, error)) (T, error) {
	return run(ctx, &o, s, nil, nil, op)
}

// RetryWhile calls op until it succeeds, retrying on schedule s the errors
// for which worth returns true; a nil worth retries every error.
//
// The first attempt is always made, unless the schedule or the options are
// invalid (see below). After a failed attempt:
//
//   - an error worth does not want retried is returned at once, unchanged;
//   - if ctx is done, or its deadline has passed by Options.Clock,
//     RetryWhile returns an *Error with Reason Canceled or Deadline;
//   - if the error carries a negative pushback (see Pushback), it returns
//     an *Error with Reason Refused;
//   - it asks the schedule; if the schedule stops, it returns an *Error
//     with Reason Exhausted;
//   - the wait is the schedule's delay, or the error's pushback if that is
//     longer (capped by Options.MaxPushback); if the wait would end at or
//     after ctx's deadline, it returns an *Error with Reason Deadline at
//     once instead of sleeping into the deadline;
//   - it calls Options.OnRetry, logs, waits on Options.Clock (returning an
//     *Error promptly if ctx ends meanwhile) and tries again.
//
// Every *Error wraps the last attempt's error, so errors.Is and errors.As
// see through it. The value returned is always the one the last attempt
// returned. op receives ctx, or a context derived from it when
// Options.AttemptTimeout is set; it may pass it on. A panic in op is not
// recovered: it propagates to the caller.
//
// A call whose first attempt succeeds reads no clock, draws no seed and
// allocates nothing, unless s measures time from its start (it contains a
// Spaced or an UpTo node; see interp.NeedsStart), in which case the clock
// is read once before the first attempt.
//
// The schedule and the options are checked before the first attempt: an
// invalid schedule (nil included), a nil op or a negative AttemptTimeout
// or MaxPushback ends the call at once with an error, and op is not
// called. For the schedule, the error wraps the *schedule.Error of
// schedule.Validate, which errors.As finds. The check is a walk of the
// schedule that costs a few nanoseconds and allocates nothing.
func RetryWhile[T any](ctx context.Context, o Options, s schedule.Schedule, worth func(error) bool, op func(context.Context) (T, error)) (T, error) {
	return run(ctx, &o, s, worth, nil, op)
}

// RetryIf is RetryWhile for callers that need more than yes or no: classify
// returns the verdict.Verdict of each error, and the runner retries
// Transient and Retryable ones and returns any other error unchanged (a
// Success or an unknown verdict included). A nil classify calls every error
// Transient. RetryWhile's worth is the classifier that says Transient for
// true and Failure for false. The verdicts are what a circuit breaker or a
// retry budget records.
func RetryIf[T any](ctx context.Context, o Options, s schedule.Schedule, classify func(error) verdict.Verdict, op func(context.Context) (T, error)) (T, error) {
	return run(ctx, &o, s, nil, classify, op)
}

// run makes the first attempt and hands over to again on failure. It is
// the whole cost of a call that succeeds at once, so it does as little as
// it can: no clock, no seed, no interpreter, no logger.
func run[T any](ctx context.Context, o *Options, s schedule.Schedule, worth func(error) bool, classify func(error) verdict.Verdict, op func(context.Context) (T, error)) (T, error) {
	timed, valid := interp.Check(s)
	if timed || !valid || op == nil || o.AttemptTimeout != 0 || o.MaxPushback < 0 || o.guarded() {
		return first(ctx, o, s, timed, valid, worth, classify, op)
	}
	v, err := op(ctx)
	if err != nil {
		return again(ctx, o, s, worth, classify, op, false, time.Time{}, v, err)
	}
	return v, nil
}

// first is run for the less common first attempts: a timed schedule, a
// per-attempt timeout, a breaker or a budget; and for the calls it refuses
// without an attempt: a nil op, an invalid schedule or invalid options.
func first[T any](ctx context.Context, o *Options, s schedule.Schedule, timed, valid bool, worth func(error) bool, classify func(error) verdict.Verdict, op func(context.Context) (T, error)) (T, error) {
	if !valid || op == nil || o.AttemptTimeout < 0 || o.MaxPushback < 0 {
		var zero T
		return zero, o.check(s, valid, op == nil)
	}
	var t0 time.Time
	if timed {
		t0 = o.clock().Now()
	}
	if !o.guarded() {
		v, err := invoke(ctx, o, op)
		if err == nil {
			return v, nil
		}
		return again(ctx, o, s, worth, classify, op, timed, t0, v, err)
	}
	v, err, _, open := guard(ctx, o, worth, classify, op, true)
	if open != nil {
		return v, open
	}
	if err == nil {
		return v, nil
	}
	return again(ctx, o, s, worth, classify, op, timed, t0, v, err)
}

// invoke makes one attempt, under the per-attempt timeout if one is set.
func invoke[T any](ctx context.Context, o *Options, op func(context.Context) (T, error)) (T, error) {
	if o.AttemptTimeout != 0 {
		return bounded(ctx, o.AttemptTimeout, op)
	}
	return op(ctx)
}

// guard makes one attempt through the breaker and the budget: it asks the
// breaker, and for the call's first attempt the budget, then records the
// attempt's verdict with both. open is the error of a refusal, in which
// case op was not called; vd is the verdict on err, which decides whether
// to retry. What is recorded is vd, except that an attempt the caller
// cancelled records Neutral.
func guard[T any](ctx context.Context, o *Options, worth func(error) bool, classify func(error) verdict.Verdict, op func(context.Context) (T, error), firstAttempt bool) (v T, err error, vd verdict.Verdict, open error) {
	var p breaker.Permit
	if o.Breaker != nil {
		if p, open = o.Breaker.Allow(); open != nil {
			return v, nil, verdict.Neutral, open
		}
	}
	if firstAttempt && o.Budget != nil && !o.Budget.Request() {
		if o.Breaker != nil {
			o.Breaker.Record(p, verdict.Neutral) // give the permit back
		}
		return v, nil, verdict.Neutral, budget.ErrThrottled
	}
	rec := verdict.Neutral // what a panicking op leaves recorded
	defer func() {
		if o.Breaker != nil {
			o.Breaker.Record(p, rec)
		}
		if o.Budget != nil {
			o.Budget.Record(rec)
		}
	}()
	v, err = invoke(ctx, o, op)
	vd = verdict.Success
	if err != nil {
		vd = judge(worth, classify, err)
	}
	if rec = vd; err != nil && ctx.Err() != nil {
		rec = verdict.Neutral // the caller gave up: that says nothing of the target
	}
	return v, err, vd, nil
}

// bounded makes one attempt under the per-attempt timeout.
func bounded[T any](ctx context.Context, timeout time.Duration, op func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return op(ctx)
}

// judge returns the verdict on a failed attempt's error.
func judge(worth func(error) bool, classify func(error) verdict.Verdict, err error) verdict.Verdict {
	if classify != nil {
		return classify(err)
	}
	if worth == nil || worth(err) {
		return verdict.Transient
	}
	return verdict.Failure
}

// again runs the retries after a first attempt that failed with err and
// returned v. timed says whether the schedule needs attempt times, and t0
// is when the first attempt started if so.
func again[T any](ctx context.Context, o *Options, s schedule.Schedule, worth func(error) bool, classify func(error) verdict.Verdict, op func(context.Context) (T, error), timed bool, t0 time.Time, v T, err error) (T, error) {
	if !judge(worth, classify, err).Retry() {
		return v, err
	}
	r := interp.Start(s, o.random().Seed()) // s is valid: run checked it
	clock := o.clock()
	deadline, hasDeadline := ctx.Deadline()
	var start, now time.Duration // of the last attempt, since t0, when timed
	for attempt := 1; ; attempt++ {
		var end time.Time
		if timed || hasDeadline {
			end = clock.Now()
		}
		if timed {
			now = end.Sub(t0)
		}
		if ctx.Err() != nil {
			return v, o.giveUp(ctx, stopped(ctx, attempt, err, nil))
		}
		if hasDeadline && !end.Before(deadline) { // by Clock, which may not be the context's
			return v, o.giveUp(ctx, &Error{Attempts: attempt, Reason: Deadline, Err: err})
		}
		push, hasPush := pushback(err)
		if hasPush && push < 0 {
			return v, o.giveUp(ctx, &Error{Attempts: attempt, Reason: Refused, Err: err})
		}
		wait, ok := r.Next(start, now)
		if !ok {
			return v, o.giveUp(ctx, &Error{Attempts: attempt, Reason: Exhausted, Err: err})
		}
		if hasPush {
			if o.MaxPushback > 0 {
				push = min(push, o.MaxPushback)
			}
			wait = max(wait, push)
		}
		if hasDeadline && !end.Add(wait).Before(deadline) {
			return v, o.giveUp(ctx, &Error{Attempts: attempt, Reason: Deadline, Err: err})
		}
		if o.Budget != nil && !o.Budget.AllowRetry() {
			return v, o.giveUp(ctx, &Error{Attempts: attempt, Reason: Budget, Err: err})
		}
		if o.OnRetry != nil {
			o.OnRetry(attempt, err, wait)
		}
		if o.Logger != nil {
			o.Logger.LogAttrs(ctx, slog.LevelDebug, "retry",
				slog.Int("attempt", attempt), slog.Duration("delay", wait), slog.Any("err", err))
		}
		if serr := clock.Sleep(ctx, wait); serr != nil {
			return v, o.giveUp(ctx, stopped(ctx, attempt, err, serr))
		}
		if timed {
			start = clock.Now().Sub(t0)
		}
		if !o.guarded() {
			v, err = invoke(ctx, o, op)
			if err == nil || !judge(worth, classify, err).Retry() {
				return v, err
			}
			continue
		}
		last := err
		var vd verdict.Verdict
		var open error
		v, err, vd, open = guard(ctx, o, worth, classify, op, false)
		if open != nil {
			return v, o.giveUp(ctx, &Error{Attempts: attempt, Reason: Open, Err: last, Cause: open})
		}
		if err == nil || !vd.Retry() {
			return v, err
		}
	}
}

// giveUp logs e and returns it.
func (o *Options) giveUp(ctx context.Context, e *Error) error {
	if o.Logger != nil {
		o.Logger.LogAttrs(ctx, slog.LevelDebug, "retry: giving up",
			slog.Int("attempts", e.Attempts), slog.String("reason", e.Reason.String()), slog.Any("err", e.Err))
	}
	return e
}
