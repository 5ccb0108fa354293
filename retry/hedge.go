package retry

import (
	"context"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

// MaxCopies is the most copies of an operation one Hedge call starts,
// whatever its schedule allows. gRFC A6 caps a hedging policy at 5
// attempts; a schedule that allows more is a mistake lint reports, and
// this bound keeps one from costing more than a fixed amount of memory.
const MaxCopies = 100

// Hedge calls op and, while no answer it accepts has come, starts another
// copy of op at each delay schedule s gives, so that a slow attempt (the
// tail of the latency distribution, Dean and Barroso's "The Tail at
// Scale") does not make the call slow. The first copy starts at once;
// after copy k starts, s is asked as if copy k had ended the moment it
// started, and its delay says when copy k+1 starts if no answer has come
// by then. s's bound on attempts is the bound on copies: Times(3) starts at
// most three, and at most MaxCopies in any case.
//
// judge decides each answer, as in Do:
//
//   - Success: the answer wins. Every other copy is canceled, and Hedge
//     returns the winner's result and error.
//   - Transient or Retryable (A6's non-fatal codes): the next copy starts
//     at once, without waiting for its delay, if s allows one; the
//     answer is held. When no copy is left to start or in flight, Hedge
//     returns the last answer with an *Error (Reason Exhausted).
//   - any other verdict (A6's fatal codes): the call ends with that
//     answer, unchanged; every other copy is canceled.
//
// Every answer Hedge does not return goes to discard, if not nil, exactly
// once: a held answer that a later one replaces, and the answers of the
// canceled copies, which may arrive after Hedge has returned (a goroutine
// of Hedge's waits for them). Only hedge calls whose every copy may run
// twice: an idempotent read, or a write with an idempotency key.
//
// The guards are those of Do. A call whose context is already done starts
// no copy. Options.Breaker is asked before every copy: an open breaker
// starts none, and each copy's verdict is recorded, a canceled copy's as
// Neutral. The budget (Options.Budget, or the target's shared default
// budget when Options.Target is set, see Options) is asked for the call
// (Request) and for every copy after the first (AllowRetry), as gRFC A6
// throttles hedges with retries; a refused copy is not started. No copy
// starts at or after the context's deadline. A pushback on a non-fatal
// answer (see Pushback and Judgement.RetryAfter) puts the next copy off
// until at least that long after it; a negative one starts no more.
// Options.AttemptTimeout bounds each copy.
//
// Each copy runs on a goroutine of its own with a context derived from
// ctx, which Hedge cancels when the copy has lost while in flight; op must
// return soon after its context ends. The context of a copy that answered
// is not canceled, since its result may still need it (an HTTP response's
// body); it ends with ctx. AttemptOf tells a copy its number. Observer
// receives an Attempted event for every copy that answered before Hedge
// returned, a Hedged event for every copy after the first as it starts,
// HedgeWon when such a copy wins, and HedgeCanceled for every copy Hedge
// cancels, and GaveUp as a retry runner does.
func Hedge[T any](ctx context.Context, o Options, s schedule.Schedule, judge Judge[T], discard func(T), op func(context.Context) (T, error)) (T, error) {
	var zero T
	_, valid := interp.Check(s)
	if o.invalid(valid, op == nil) {
		return zero, o.check(s, valid, op == nil)
	}
	if ctx.Err() != nil {
		return zero, o.giveUp(ctx, stopped(ctx, 0, nil, nil), "")
	}
	o.throttle()
	if judge == nil {
		judge = func(_ T, err error) Judgement {
			if err == nil {
				return Judgement{Verdict: verdict.Success}
			}
			return Judgement{Verdict: verdict.Transient}
		}
	}
	h := &hedge[T]{
		o:       &o,
		ctx:     ctx,
		s:       s,
		judge:   judge,
		discard: discard,
		op:      op,
	}
	h.run = interp.StartIn(s, o.random().Seed(), &h.nodes)
	h.most = min(schedule.Bounds(s).MaxAttempts, MaxCopies)
	h.results = make(chan answer[T], h.most)
	return h.loop()
}

// hedge is the state of one Hedge call. Only the caller's goroutine
// touches it, but for the channel the copies answer on.
type hedge[T any] struct {
	o       *Options
	ctx     context.Context
	s       schedule.Schedule
	judge   Judge[T]
	discard func(T)
	op      func(context.Context) (T, error)
	run     interp.Run
	nodes   interp.Buffer // the run's nodes, for a small schedule

	t0      time.Time // when the first copy started
	most    int       // copies allowed in all
	started int       // copies started
	copies  []*hedgeCopy
	results chan answer[T]

	held   bool // an answer is held: v, err, jd
	v      T
	err    error
	jd     Judgement
	more   bool      // s allows another copy
	nextAt time.Time // when it starts, if no answer comes first
	// stop, when not zero, is why no copy is to start although s allows
	// one: Refused (a negative pushback), Deadline, Budget or Open.
	stop  Reason
	cause error // the breaker's refusal, with Open

	timer context.CancelFunc // ends the wait for the next copy, if one is armed
}

// hedgeCopy is one started copy: its cancellation and its guards' state.
type hedgeCopy struct {
	n      int
	cancel context.CancelFunc
	permit breaker.Permit
	start  mark
	done   bool
}

// answer is what a copy returned.
type answer[T any] struct {
	n   int // the copy, from 1
	v   T
	err error
}

func (h *hedge[T]) loop() (T, error) {
	o := h.o
	clock := o.clock()
	deadline, hasDeadline := h.ctx.Deadline()
	h.t0 = clock.Now()
	if err := h.launch(h.t0); err != nil {
		var zero T
		if o.Observer != nil {
			o.refused(h.ctx, err)
		}
		return zero, err
	}
	var wake chan struct{} // closed when the next copy is due
	defer h.disarm()
	for {
		if wake == nil && h.more && h.stop == 0 {
			wake = h.arm(clock.Now())
		}
		if h.inflight() == 0 && (!h.more || h.stop != 0) {
			return h.giveUp()
		}
		select {
		case a := <-h.results:
			c := h.copies[a.n-1]
			c.done = true
			jd := h.judge(a.v, a.err)
			h.record(c, jd.Verdict, a.err)
			switch {
			case jd.Verdict == verdict.Success || !jd.Verdict.Retry():
				h.cancelOthers(a.n)
				if jd.Verdict == verdict.Success && a.n > 1 && o.Observer != nil {
					o.Observer.Observe(h.ctx, Event{Kind: HedgeWon, Target: o.Target, Attempt: a.n, Label: jd.Reason})
				}
				h.drop()
				return a.v, a.err
			}
			h.drop()
			h.v, h.err, h.jd, h.held = a.v, a.err, jd, true
			push, hasPush := jd.RetryAfter, jd.RetryAfter != 0
			if !hasPush {
				push, hasPush = pushback(a.err)
			}
			switch {
			case hasPush && push < 0:
				h.stop = Refused // the server asks for no more
			case hasPush:
				if o.MaxPushback > 0 {
					push = min(push, o.MaxPushback)
				}
				h.nextAt = clock.Now().Add(push)
			default:
				h.nextAt = clock.Now() // a non-fatal answer: the next copy now
			}
			h.disarm()
			wake = nil
		case <-wake:
			wake = nil
			now := clock.Now()
			switch {
			case hasDeadline && !now.Before(deadline):
				h.stop = Deadline // no copy starts at or after the deadline
			case o.Budget != nil && !o.Budget.AllowRetry():
				h.stop = Budget // throttled: the copies in flight may still answer
			default:
				if err := h.launch(now); err != nil {
					h.stop, h.cause = Open, err
				}
			}
		case <-h.ctx.Done():
			h.cancelOthers(0)
			e := stopped(h.ctx, h.started, h.err, nil)
			return h.out(o.giveUp(h.ctx, e, h.jd.Reason))
		}
	}
}

// arm returns a channel that is closed when the next copy is due, at
// h.nextAt on the Options' clock.
func (h *hedge[T]) arm(now time.Time) chan struct{} {
	h.disarm()
	clock, wait := h.o.clock(), max(h.nextAt.Sub(now), 0)
	tctx, cancel := context.WithCancel(h.ctx)
	h.timer = cancel
	wake := make(chan struct{})
	go func() {
		if clock.Sleep(tctx, wait) == nil {
			close(wake)
		}
	}()
	return wake
}

// disarm stops the wait arm started, if any.
func (h *hedge[T]) disarm() {
	if h.timer != nil {
		h.timer()
		h.timer = nil
	}
}

// launch starts the next copy at now, and works out when the one after it
// would start. It returns the breaker's refusal, or for the first copy the
// budget's (budget.ErrThrottled), in which case no copy started. As for
// retries, the breaker is asked first: a call it refuses never reaches the
// budget.
func (h *hedge[T]) launch(now time.Time) error {
	o := h.o
	c := &hedgeCopy{}
	if o.Breaker != nil {
		var err error
		if c.permit, err = o.Breaker.Allow(); err != nil {
			return err
		}
	}
	if h.started == 0 && o.Budget != nil && !o.Budget.Request() {
		if o.Breaker != nil {
			o.Breaker.Record(&c.permit, verdict.Neutral) // give the permit back
		}
		return budget.ErrThrottled
	}
	h.started++
	n := h.started
	cctx, cancel := context.WithCancel(h.ctx)
	c.n, c.cancel = n, cancel
	if o.Observer != nil {
		c.start = o.mark()
		if n > 1 {
			o.Observer.Observe(h.ctx, Event{Kind: Hedged, Target: o.Target, Attempt: n})
		}
	}
	h.copies = append(h.copies, c)
	actx := &attemptCtx{Context: cctx, number: n, clock: o.clock(), run: &h.run}
	op, timeout, results := h.op, o.AttemptTimeout, h.results
	go func() {
		var v T
		var err error
		if timeout > 0 {
			v, err = bounded(actx, timeout, op)
		} else {
			v, err = op(actx)
		}
		results <- answer[T]{n: n, v: v, err: err} // buffered for every copy: never blocks
	}()
	at := now.Sub(h.t0)
	d, ok := h.run.Next(at, at)
	h.more = ok && h.started < h.most
	h.nextAt = now.Add(d)
	return nil
}

// record tells the breaker, the budget and the observer how copy c ended.
func (h *hedge[T]) record(c *hedgeCopy, v verdict.Verdict, err error) {
	o := h.o
	rec := verdict.Recorded(h.ctx, v)
	if o.Breaker != nil {
		o.Breaker.Record(&c.permit, rec)
	}
	if o.Budget != nil {
		o.Budget.Record(rec)
	}
	if o.Observer != nil {
		o.Observer.Observe(h.ctx, Event{Kind: Attempted, Target: o.Target, Attempt: c.n, Verdict: v, Elapsed: o.since(c.start), Err: err})
	}
}

// inflight returns how many copies have not answered.
func (h *hedge[T]) inflight() int {
	n := 0
	for _, c := range h.copies {
		if !c.done {
			n++
		}
	}
	return n
}

// cancelOthers cancels every copy in flight but copy keep (0: all of
// them), and hands their answers, when they come, to a goroutine that
// records them as Neutral and discards them.
func (h *hedge[T]) cancelOthers(keep int) {
	o := h.o
	var left []*hedgeCopy
	for _, c := range h.copies {
		if c.done || c.n == keep {
			continue
		}
		c.cancel()
		left = append(left, c)
		if o.Observer != nil {
			o.Observer.Observe(h.ctx, Event{Kind: HedgeCanceled, Target: o.Target, Attempt: c.n})
		}
	}
	if len(left) == 0 {
		return
	}
	results, discard := h.results, h.discard
	go func() {
		for range left {
			a := <-results
			c := h.copies[a.n-1]
			if o.Breaker != nil {
				o.Breaker.Record(&c.permit, verdict.Neutral)
			}
			if o.Budget != nil {
				o.Budget.Record(verdict.Neutral)
			}
			if discard != nil {
				discard(a.v)
			}
		}
	}()
}

// drop discards the held answer, if any.
func (h *hedge[T]) drop() {
	if h.held {
		h.held = false
		if h.discard != nil {
			h.discard(h.v)
		}
		var zero T
		h.v = zero
	}
}

// out returns the held answer, if any, with err.
func (h *hedge[T]) out(err error) (T, error) {
	h.held = false
	return h.v, err
}

// giveUp ends a call whose copies all answered non-fatally and that may
// start no other.
func (h *hedge[T]) giveUp() (T, error) {
	e := &Error{Attempts: h.started, Reason: Exhausted, Err: h.err}
	if h.more && h.stop != 0 {
		e.Reason, e.Cause = h.stop, h.cause
	}
	return h.out(h.o.giveUp(h.ctx, e, h.jd.Reason))
}
