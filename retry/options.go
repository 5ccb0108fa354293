package retry

import (
	"errors"
	"fmt"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/schedule"
)

// Options are the capabilities and knobs of a run. The zero value is ready
// to use: the real clock and random, no per-attempt timeout, pushback
// bounded only by the context's deadline, no observer. Options is a plain
// value; one value may be shared by any number of concurrent calls if its
// Clock, Random and Observer may.
//
// The adapters (httpretry, grpcretry, pgretry, redisretry, natsretry)
// take an Options too, in their Config's Options field, with one rule:
// Target, Breaker and Budget are theirs to set for each call, from the
// target the call goes to and their Config's Breaker and Budget
// registries, so an Options that sets any of the three is an error from
// the adapter's constructor. Every other field means what it means here,
// and an adapter that has no use for one says so in its Config's doc.
type Options struct {
	// Caps are the clock and the random source.
	Caps

	// AttemptTimeout, when positive, bounds each attempt: the operation's
	// context ends that long after the attempt starts, or at the caller's
	// deadline if that comes first. It uses the context package's timers,
	// that is the real clock (or a testing/synctest bubble's), whatever
	// Clock is. Zero means no per-attempt timeout; negative is an error.
	AttemptTimeout time.Duration

	// MaxPushback, when positive, caps how long a server's pushback (see
	// Pushback) can make the runner wait: a longer request is shortened to
	// MaxPushback. Zero means no cap of its own; the context's deadline
	// still bounds every wait. Negative is an error.
	MaxPushback time.Duration

	// Observer, if not nil, receives an Event for every attempt, retry,
	// give-up and recovery: the one channel for logs (LogObserver), metrics
	// and traces (see Observer; Observers combines several). It costs two
	// clock reads per attempt; nil costs nothing.
	Observer Observer

	// Target names the dependency the calls are made to, such as
	// "https://api.example.com:443"; the adapters set it to the target of
	// each call. It tags the Observer's events, and it throttles: a call
	// with a Target and no Budget retries within the target's default
	// budget, budget.Shared().Get(Target), which every call to that
	// target in the process shares (gRFC A6's token bucket, see
	// budget.DefaultConfig), unless Unthrottled is set.
	Target string

	// Breaker, if not nil, guards every attempt: an attempt it refuses is
	// not made, and the call ends at once with an error that errors.Is
	// matches to breaker.ErrOpen — a runner never retries through an open
	// breaker. Each attempt's verdict is recorded with it; a caller-side
	// cancellation is recorded as Neutral.
	Breaker *breaker.Breaker

	// Budget, if not nil, bounds the load the calls put on their target:
	// Request before the first attempt (a refused call ends with
	// budget.ErrThrottled, unattempted), AllowRetry before each retry's
	// wait (a refused retry ends the call with Reason Budget), and Record
	// after every attempt. Nil means the target's shared default budget
	// when Target is set (see Target), and no budget when it is not: a
	// call with neither a Target nor a Budget is limited by its schedule
	// alone.
	Budget budget.Budget

	// ErrorLimits bound the attempts of a call by the error they fail
	// with, inside the schedule's own bound: with
	// ErrorLimits{{Err: ErrConflict, Attempts: 3}} and Times(5), a call
	// whose attempts keep failing with ErrConflict gives up after the
	// third of them (Reason Exhausted), while one failing with other
	// errors makes its 5 (avast/retry-go's AttemptsForError). An attempt
	// counts against every limit whose Err errors.Is matches its error; a
	// limit ends the call once Attempts attempts have matched it. The
	// errors a judge does not want retried end the call anyway. At most
	// MaxErrorLimits; an Err that is nil or Attempts below 1 is an error,
	// reported before the first attempt. Hedge does not use them.
	ErrorLimits []ErrorLimit

	// Unthrottled turns the default budget of a call with a Target off,
	// so that only the schedule limits its retries. It is the one way to
	// do so: a nil Budget with a Target set is throttled. Setting both
	// Unthrottled and Budget is an error, reported before the first
	// attempt.
	Unthrottled bool
}

// ErrorLimit is one of Options.ErrorLimits: at most Attempts attempts of a
// call may fail with an error that errors.Is matches to Err.
type ErrorLimit struct {
	// Err is the error the limit is for, such as a sentinel
	// (sql.ErrTxDone) or a wrapped one (errors.Is looks through %w).
	Err error
	// Attempts is the most attempts that may fail with Err, the first
	// included: 1 means such an error is never retried.
	Attempts int
}

// MaxErrorLimits is the most ErrorLimits one Options may have.
const MaxErrorLimits = 8

// Caps are the capabilities a runner uses to read the time, wait and draw
// randomness: the fields that retry.Options and repeat.Options share. The
// zero value is the real clock and the real random source.
type Caps struct {
	// Clock reads the time and waits; nil means clockcap.Real(). A test
	// passes clockcap.Virtual to run a retry loop in no time. The
	// context's deadline is compared with this clock's time, so a test
	// with a virtual clock sets its deadline on the virtual timeline.
	Clock clockcap.Clock

	// Random gives each run its seed, from which all its jitter derives;
	// nil means randcap.Real(). A test passes randcap.Seeded to pin it.
	Random randcap.Random
}

// guarded reports whether attempts go through a breaker or a budget, the
// target's default one included (see throttle).
func (o *Options) guarded() bool {
	return o.Breaker != nil || o.Budget != nil || o.Target != "" && !o.Unthrottled
}

// throttle gives a call to a Target without a Budget the target's shared
// default budget, unless the call is Unthrottled.
func (o *Options) throttle() {
	if o.Budget == nil && o.Target != "" && !o.Unthrottled {
		o.Budget = budget.Shared().Get(o.Target)
	}
}

func (o *Caps) clock() clockcap.Clock {
	if o.Clock != nil {
		return o.Clock
	}
	return clockcap.Real()
}

func (o *Caps) random() randcap.Random {
	if o.Random != nil {
		return o.Random
	}
	return randcap.Real()
}

var (
	errNilOp          = errors.New("retry: nil operation")
	errAttemptTimeout = errors.New("retry: negative Options.AttemptTimeout")
	errMaxPushback    = errors.New("retry: negative Options.MaxPushback")
	errUnthrottled    = errors.New("retry: Options sets both Budget and Unthrottled")
	errErrorLimits    = errors.New("retry: more than MaxErrorLimits Options.ErrorLimits")
)

// Check returns what is wrong with o, or nil: a negative AttemptTimeout or
// MaxPushback, or both Budget and Unthrottled set. A runner returns the
// same error before its first attempt; call Check where Options are
// loaded, to report a mistake then rather than at the first call.
func (o Options) Check() error { return o.check(nil, true, false) }

// CheckAdapter is Check for an Options handed to an adapter, which sets
// Target, Breaker and Budget for each call itself: it also reports any of
// the three set. The adapters' constructors return its error.
func (o Options) CheckAdapter() error {
	switch {
	case o.Target != "":
		return errors.New("retry: Options.Target is set: the adapter sets it for each call")
	case o.Breaker != nil:
		return errors.New("retry: Options.Breaker is set: give the adapter's Config a Breaker registry instead")
	case o.Budget != nil:
		return errors.New("retry: Options.Budget is set: give the adapter's Config a Budget registry instead")
	}
	return o.Check()
}

// invalid reports whether check has something to say; it is the cheap
// test that the first attempt's path makes.
func (o *Options) invalid(valid, nilOp bool) bool {
	return !valid || nilOp || o.AttemptTimeout < 0 || o.MaxPushback < 0 || o.Unthrottled && o.Budget != nil || len(o.ErrorLimits) > 0 && badLimits(o.ErrorLimits)
}

// badLimits reports whether ls holds a limit check refuses.
func badLimits(ls []ErrorLimit) bool {
	if len(ls) > MaxErrorLimits {
		return true
	}
	for _, l := range ls {
		if l.Err == nil || l.Attempts < 1 {
			return true
		}
	}
	return false
}

// check returns why a call must not make its first attempt, or nil. valid
// is interp.Check's verdict on s; only when it is false does check pay for
// schedule.Validate, whose *schedule.Error names the invalid node.
func (o *Options) check(s schedule.Schedule, valid, nilOp bool) error {
	switch {
	case nilOp:
		return errNilOp
	case !valid:
		return fmt.Errorf("retry: invalid schedule: %w", schedule.Validate(s))
	case o.AttemptTimeout < 0:
		return errAttemptTimeout
	case o.MaxPushback < 0:
		return errMaxPushback
	case o.Unthrottled && o.Budget != nil:
		return errUnthrottled
	case len(o.ErrorLimits) > MaxErrorLimits:
		return errErrorLimits
	}
	for i, l := range o.ErrorLimits {
		switch {
		case l.Err == nil:
			return fmt.Errorf("retry: Options.ErrorLimits[%d] has a nil Err", i)
		case l.Attempts < 1:
			return fmt.Errorf("retry: Options.ErrorLimits[%d] allows %d attempts: want 1 or more", i, l.Attempts)
		}
	}
	return nil
}
