package retry

import (
	"context"
	"strconv"
	"time"

	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/verdict"
)

// Observer receives the events of a run, for metrics and traces: the
// Prometheus and OpenTelemetry adapters of this module's repository are
// Observers. Observe is called synchronously on the caller's goroutine,
// with the caller's context (so a tracer finds the caller's span in it); it
// must be quick, must not block, and must not keep e.Err past the call if
// that error's owner reuses it.
//
// With Options.Observer nil the runner's cost is unchanged: no clock
// read, no allocation. With one set, every attempt is timed with two reads
// of Options.Clock (of the monotonic clock alone, with the real clock),
// and a call whose first attempt succeeds reports one Attempted event.
type Observer interface {
	Observe(ctx context.Context, e Event)
}

// ObserverFunc is an Observer made of a function.
type ObserverFunc func(ctx context.Context, e Event)

// Observe calls f(ctx, e).
func (f ObserverFunc) Observe(ctx context.Context, e Event) { f(ctx, e) }

// Event is one thing that happened in a run. Kind says which, and which of
// the other fields are set.
type Event struct {
	// Kind is what happened.
	Kind EventKind
	// Target is Options.Target: the dependency the call is made to.
	Target string
	// Attempt is the number of the attempt the event is about, from 1:
	// the attempt that ended (Attempted), the attempt that failed before
	// the wait (Retrying), the attempts made in all (GaveUp, Recovered).
	// A call refused before its first attempt gives up with Attempt 0.
	Attempt int
	// Verdict is the attempt's verdict (Attempted).
	Verdict verdict.Verdict
	// Elapsed is how long the attempt took by Options.Clock (Attempted).
	Elapsed time.Duration
	// Delay is the wait before the next attempt (Retrying).
	Delay time.Duration
	// Label is the reason label of the attempt's Judgement (see
	// Judgement.Reason), or for Recovered the label of the judgement
	// that led to the last retry: what the call recovered from. Empty
	// unless a Judge gave one.
	Label string
	// Reason is why the runner made no further attempt (GaveUp): Budget
	// is a retry the budget throttled, or with Attempt 0 a call it
	// refused; Open is an attempt the breaker refused.
	Reason Reason
	// Err is the attempt's error (Attempted, Retrying), or the error the
	// runner returns (GaveUp).
	Err error
}

// EventKind says what an Event reports.
type EventKind uint8

const (
	// Attempted: an attempt ended. Every attempt made reports one, the
	// first included, whatever its outcome.
	Attempted EventKind = iota + 1
	// Retrying: the runner is about to wait before another attempt (for
	// repeat.Repeat, another run).
	Retrying
	// GaveUp: the runner gave up on an outcome it would have retried, or
	// was refused before the first attempt by the breaker or the budget.
	GaveUp
	// Recovered: an attempt after one or more retries succeeded.
	Recovered
	// Hedged: Hedge started another copy of the operation; Attempt is its
	// number, from 2.
	Hedged
	// HedgeWon: a copy after the first won a Hedge call; Attempt is its
	// number.
	HedgeWon
	// HedgeCanceled: Hedge canceled a copy still in flight because another
	// answered, or because the call ended; Attempt is its number.
	HedgeCanceled
)

var kindNames = [...]string{Attempted: "attempted", Retrying: "retrying", GaveUp: "gave-up", Recovered: "recovered",
	Hedged: "hedged", HedgeWon: "hedge-won", HedgeCanceled: "hedge-canceled"}

// String returns the kind's name, such as "retrying".
func (k EventKind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// attempted reports the end of attempt n, started at start, to the
// Observer, which is not nil.
func (o *Options) attempted(ctx context.Context, n int, start mark, jd Judgement, err error) {
	o.Observer.Observe(ctx, Event{Kind: Attempted, Target: o.Target, Attempt: n, Verdict: jd.Verdict,
		Elapsed: o.since(start), Label: jd.Reason, Err: err})
}

// mark is when an attempt started: with the real clock, the monotonic
// clock's reading since monoEpoch, which costs one read where time.Now
// costs two (wall and monotonic); with another clock, its reading.
type mark struct {
	mono time.Duration
	at   time.Time
}

// monoEpoch is the origin of the real clock's marks.
var monoEpoch = time.Now()

// mark returns the time now, to time an attempt from.
func (o *Options) mark() mark {
	if c := o.clock(); c != clockcap.Real() {
		return mark{at: c.Now()}
	}
	return mark{mono: time.Since(monoEpoch)}
}

// since returns the time elapsed since m.
func (o *Options) since(m mark) time.Duration {
	if c := o.clock(); c != clockcap.Real() {
		return c.Now().Sub(m.at)
	}
	return time.Since(monoEpoch) - m.mono
}

// refused reports to the Observer, which is not nil, a call that the
// breaker or the budget refused before its first attempt.
func (o *Options) refused(ctx context.Context, err error) {
	reason := Open
	if err == budget.ErrThrottled {
		reason = Budget
	}
	o.Observer.Observe(ctx, Event{Kind: GaveUp, Target: o.Target, Reason: reason, Err: err})
}
