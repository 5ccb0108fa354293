package retry

import (
	"context"
	"errors"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

// Retry calls op until it succeeds, retrying every error on schedule s. It
// is RetryWhile with a predicate that is always true.
func Retry[T any](ctx context.Context, o Options, s schedule.Schedule, op func(context.Context) (T, error)) (T, error) {
	return run(ctx, &o, s, rules[T]{}, op)
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
//   - it reports a Retrying event to Options.Observer, waits on
//     Options.Clock (returning an *Error promptly if ctx ends meanwhile)
//     and tries again.
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
// is read once before the first attempt. A call that retries allocates
// once, for all its state, if s has at most interp.BufferNodes nodes (as
// fulljitter(100ms, 30s) & times(5) has), and once more for the nodes of a larger s;
// a retry after a zero delay on the real clock does not sleep.
//
// The schedule and the options are checked before the first attempt: an
// invalid schedule (nil included), a nil op or a negative AttemptTimeout
// or MaxPushback ends the call at once with an error, and op is not
// called. For the schedule, the error wraps the *schedule.Error of
// schedule.Validate, which errors.As finds. The check is a walk of the
// schedule that costs a few nanoseconds and allocates nothing.
func RetryWhile[T any](ctx context.Context, o Options, s schedule.Schedule, worth func(error) bool, op func(context.Context) (T, error)) (T, error) {
	return run(ctx, &o, s, rules[T]{errRules: errRules{worth: worth}}, op)
}

// RetryIf is RetryWhile for callers that need more than yes or no: classify
// returns the verdict.Verdict of each error, and the runner retries
// Transient and Retryable ones and returns any other error unchanged (a
// Success or an unknown verdict included). A nil classify calls every error
// Transient. RetryWhile's worth is the classifier that says Transient for
// true and Failure for false. The verdicts are what a circuit breaker or a
// retry budget records.
func RetryIf[T any](ctx context.Context, o Options, s schedule.Schedule, classify func(error) verdict.Verdict, op func(context.Context) (T, error)) (T, error) {
	return run(ctx, &o, s, rules[T]{errRules: errRules{classify: classify}}, op)
}

// run makes the first attempt and hands over to again on failure. It is
// the whole cost of a call that succeeds at once, so it does as little as
// it can: no clock, no seed, no interpreter, no logger.
func run[T any](ctx context.Context, o *Options, s schedule.Schedule, rl rules[T], op func(context.Context) (T, error)) (T, error) {
	timed, valid := interp.Check(s)
	if timed || !valid || op == nil || o.AttemptTimeout != 0 || o.MaxPushback < 0 || len(o.ErrorLimits) != 0 || o.guarded() || o.Observer != nil || ctx.Err() != nil {
		return first(ctx, o, s, timed, valid, &rl, op)
	}
	v, err := op(ctx)
	var jd Judgement
	switch {
	case rl.judge == nil:
		if err == nil {
			return v, nil
		}
		jd.Verdict = rl.verdict(err)
	case rl.discard != nil:
		// The runner holds v while judge runs: a panic discards it (as
		// rules.first does; written out here, where a call of first
		// would cost a judged success a fifth more).
		held := true
		defer func() {
			if held {
				rl.discard(v)
			}
		}()
		jd = rl.judge(v, err)
		held = false
	default:
		jd = rl.judge(v, err)
	}
	if !jd.Verdict.Retry() { // a success, or an error not retried: no call of again
		return v, err
	}
	return again(ctx, o, s, &rl, op, false, time.Time{}, v, err, jd)
}

// first is run for the less common first attempts: a timed schedule, a
// per-attempt timeout, a breaker, a budget, a target or an observer; and
// for the calls it refuses without an attempt: a nil op, an invalid
// schedule or invalid options, and a context that is already done.
func first[T any](ctx context.Context, o *Options, s schedule.Schedule, timed, valid bool, rl *rules[T], op func(context.Context) (T, error)) (T, error) {
	var zero T
	if o.invalid(valid, op == nil) {
		return zero, o.check(s, valid, op == nil)
	}
	if ctx.Err() != nil {
		// A call that can no longer succeed never reaches op: it would
		// only load the target with work nobody waits for.
		return zero, o.giveUp(ctx, stopped(ctx, 0, nil, nil), "")
	}
	o.throttle()
	var t0 time.Time
	if timed {
		t0 = o.clock().Now()
	}
	if o.Observer != nil {
		return observed(ctx, o, s, timed, t0, rl, op)
	}
	if !o.guarded() {
		v, err := invoke(ctx, o, op)
		if err == nil && rl.judge == nil {
			return v, nil
		}
		return again(ctx, o, s, rl, op, timed, t0, v, err, rl.first(v, err))
	}
	v, err, jd, open := guard(ctx, o, rl, op, true)
	if open != nil {
		return v, open
	}
	return again(ctx, o, s, rl, op, timed, t0, v, err, jd)
}

// observed is first for a call with an Observer: the first attempt is
// timed and reported. It is apart from first so that a call without an
// Observer pays one check for it (folded into first, the checks cost a
// timed first attempt 17 instructions more).
func observed[T any](ctx context.Context, o *Options, s schedule.Schedule, timed bool, t0 time.Time, rl *rules[T], op func(context.Context) (T, error)) (T, error) {
	a0 := o.mark()
	if !o.guarded() {
		v, err := invoke(ctx, o, op)
		jd := rl.first(v, err)
		o.attempted(ctx, 1, a0, jd, err)
		return again(ctx, o, s, rl, op, timed, t0, v, err, jd)
	}
	v, err, jd, open := guard(ctx, o, rl, op, true)
	if open != nil {
		o.refused(ctx, open)
		return v, open
	}
	o.attempted(ctx, 1, a0, jd, err)
	return again(ctx, o, s, rl, op, timed, t0, v, err, jd)
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
// case op was not called; jd is the judgement of the attempt, which
// decides whether to retry. What is recorded is its verdict,
// except that an attempt the caller cancelled records Neutral.
func guard[T any](ctx context.Context, o *Options, rl *rules[T], op func(context.Context) (T, error), firstAttempt bool) (v T, err error, jd Judgement, open error) {
	var p breaker.Permit
	if o.Breaker != nil {
		if p, open = o.Breaker.Allow(); open != nil {
			return v, nil, Judgement{Verdict: verdict.Neutral}, open
		}
	}
	if firstAttempt && o.Budget != nil && !o.Budget.Request() {
		if o.Breaker != nil {
			o.Breaker.Record(&p, verdict.Neutral) // give the permit back
		}
		return v, nil, Judgement{Verdict: verdict.Neutral}, budget.ErrThrottled
	}
	rec := verdict.Neutral // what a panicking op or judge leaves recorded
	defer func() {
		if o.Breaker != nil {
			o.Breaker.Record(&p, rec)
		}
		if o.Budget != nil {
			o.Budget.Record(rec)
		}
	}()
	v, err = invoke(ctx, o, op)
	jd = rl.first(v, err)
	rec = verdict.Recorded(ctx, jd.Verdict)
	return v, err, jd, nil
}

// bounded makes one attempt under the per-attempt timeout.
func bounded[T any](ctx context.Context, timeout time.Duration, op func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return op(ctx)
}

// again runs the retries after a first attempt that returned v and err and
// was judged jd. timed says whether the schedule needs attempt times, and
// t0 is when the first attempt started if so.
func again[T any](ctx context.Context, o *Options, s schedule.Schedule, rl *rules[T], op func(context.Context) (T, error), timed bool, t0 time.Time, v T, err error, jd Judgement) (T, error) {
	if !jd.Verdict.Retry() {
		return v, err
	}
	// One allocation holds all the state of a call that retries: the
	// interpreter's run and its nodes (which escape anyway, their steps
	// being called through function values), the context the attempts
	// see and the result the runner holds.
	c := &call[T]{v: v, held: true}
	c.run = interp.StartIn(s, o.random().Seed(), &c.nodes) // s is valid: run checked it
	defer c.release(rl.discard)
	c.actx.Context = ctx
	c.actx.clock = o.clock()
	c.actx.run = &c.run
	return c.loop(ctx, o, rl, op, timed, t0, err, jd)
}

// call is the state of a call that retries.
type call[T any] struct {
	run   interp.Run
	nodes interp.Buffer // the run's nodes, for a schedule of interp.BufferNodes or fewer
	actx  attemptCtx
	v     T                     // the last attempt's result
	held  bool                  // v is neither returned nor discarded yet
	hits  [MaxErrorLimits]int32 // failed attempts that matched each of Options.ErrorLimits
}

// limited counts a failed attempt's err against the limits it matches and
// reports whether one of them has run out.
func (c *call[T]) limited(ls []ErrorLimit, err error) bool {
	out := false
	for i, l := range ls {
		if err != nil && errors.Is(err, l.Err) {
			c.hits[i]++
			out = out || int(c.hits[i]) >= l.Attempts
		}
	}
	return out
}

// out hands the held result to the caller with err.
func (c *call[T]) out(err error) (T, error) {
	c.held = false
	return c.v, err
}

// release discards the held result of a call that ends by a panic.
func (c *call[T]) release(discard func(T)) {
	if c.held && discard != nil {
		c.held = false
		discard(c.v)
	}
}

// drop discards the held result before the next attempt replaces it.
func (c *call[T]) drop(discard func(T)) {
	c.held = false
	if discard != nil {
		v := c.v
		var zero T
		c.v = zero
		discard(v)
	}
}

// loop makes the retries. Its per-retry work is kept to what the options
// ask for: the clock is read only for a timed schedule or a deadline, an
// Observer or a guard costs a test of a local when absent, and a zero
// wait on the real clock sleeps not at all (Sleep would only return
// ctx.Err(), which the loop has just checked).
func (c *call[T]) loop(ctx context.Context, o *Options, rl *rules[T], op func(context.Context) (T, error), timed bool, t0 time.Time, err error, jd Judgement) (T, error) {
	clock := o.clock()
	deadline, hasDeadline := ctx.Deadline()
	obs, guarded, limits := o.Observer != nil, o.guarded(), len(o.ErrorLimits) > 0
	sleepZero := obs || o.Clock != nil && o.Clock != clockcap.Real()
	var start, now time.Duration // of the last attempt, since t0, when timed
	for attempt := 1; ; attempt++ {
		var end time.Time
		if timed || hasDeadline {
			end = clock.Now()
			if timed {
				now = end.Sub(t0)
			}
		}
		if ctx.Err() != nil {
			return c.out(o.giveUp(ctx, stopped(ctx, attempt, err, nil), jd.Reason))
		}
		if hasDeadline && !end.Before(deadline) { // by Clock, which may not be the context's
			return c.out(o.giveUp(ctx, &Error{Attempts: attempt, Reason: Deadline, Err: err}, jd.Reason))
		}
		push, hasPush := jd.RetryAfter, jd.RetryAfter != 0
		if !hasPush {
			push, hasPush = pushback(err)
		}
		if hasPush && push < 0 {
			return c.out(o.giveUp(ctx, &Error{Attempts: attempt, Reason: Refused, Err: err}, jd.Reason))
		}
		if limits && c.limited(o.ErrorLimits, err) {
			return c.out(o.giveUp(ctx, &Error{Attempts: attempt, Reason: Exhausted, Err: err}, jd.Reason))
		}
		wait, ok := c.run.Next(start, now)
		if !ok {
			return c.out(o.giveUp(ctx, &Error{Attempts: attempt, Reason: Exhausted, Err: err}, jd.Reason))
		}
		if hasPush {
			if o.MaxPushback > 0 {
				push = min(push, o.MaxPushback)
			}
			wait = max(wait, push)
		}
		if hasDeadline && !end.Add(wait).Before(deadline) {
			return c.out(o.giveUp(ctx, &Error{Attempts: attempt, Reason: Deadline, Err: err}, jd.Reason))
		}
		if guarded && o.Budget != nil && !o.Budget.AllowRetry() {
			return c.out(o.giveUp(ctx, &Error{Attempts: attempt, Reason: Budget, Err: err}, jd.Reason))
		}
		if obs {
			o.Observer.Observe(ctx, Event{Kind: Retrying, Target: o.Target, Attempt: attempt, Delay: wait, Label: jd.Reason, Err: err})
		}
		if wait > 0 || sleepZero {
			if serr := clock.Sleep(ctx, wait); serr != nil {
				return c.out(o.giveUp(ctx, stopped(ctx, attempt, err, serr), jd.Reason))
			}
		}
		if timed {
			start = clock.Now().Sub(t0)
		}
		c.drop(rl.discard)
		if rl.discard != nil && ctx.Err() != nil { // the caller left while the result was discarded
			return c.out(o.giveUp(ctx, stopped(ctx, attempt, err, nil), jd.Reason))
		}
		c.actx.number = attempt + 1
		why := jd.Reason // what this retry recovers from
		var a0 mark
		if obs {
			a0 = o.mark()
		}
		if !guarded {
			if o.AttemptTimeout != 0 {
				c.v, err = bounded(&c.actx, o.AttemptTimeout, op)
			} else {
				c.v, err = op(&c.actx)
			}
			c.held = true
			if rl.judge != nil {
				jd = rl.judge(c.v, err)
			} else {
				jd = Judgement{Verdict: rl.verdict(err)}
			}
		} else {
			last := err
			var open error
			c.v, err, jd, open = guard(&c.actx, o, rl, op, false)
			c.held = open == nil
			if open != nil {
				return c.out(o.giveUp(ctx, &Error{Attempts: attempt, Reason: Open, Err: last, Cause: open}, why))
			}
		}
		if obs {
			o.attempted(ctx, attempt+1, a0, jd, err)
		}
		if !jd.Verdict.Retry() {
			if obs && jd.Verdict == verdict.Success {
				o.Observer.Observe(ctx, Event{Kind: Recovered, Target: o.Target, Attempt: attempt + 1, Label: why})
			}
			return c.out(err)
		}
	}
}

// giveUp records reason, the label of the last judgement, in e, reports
// it to the Observer and returns e.
func (o *Options) giveUp(ctx context.Context, e *Error, reason string) error {
	e.Label = reason
	if o.Observer != nil {
		o.Observer.Observe(ctx, Event{Kind: GaveUp, Target: o.Target, Attempt: e.Attempts, Label: reason, Reason: e.Reason, Err: e})
	}
	return e
}
