package redisretry

import (
	"context"
	"errors"
	"fmt"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
	"github.com/redis/go-redis/v9"
)

// Config says how a client's commands are retried and guarded, in the
// shape every recur adapter shares (docs/adapters.md). The zero value is
// usable: recur's default policy (retry.DefaultSchedule: full jitter from
// 100ms doubling to 2s, three attempts in all) for commands marked
// idempotent, within the server's shared default budget; a breaker with
// breaker.Config's defaults; no automatic marking.
type Config struct {
	// Policy is the retry policy of the commands marked idempotent
	// (WithIdempotent, or ReadOnlyIdempotent). Nil means
	// retry.DefaultSchedule(). A policy in recur's language, such as
	// "fulljitter(50ms, 1s) & times(3)", is parse.Parse's result or a
	// parse.Policy's Schedule.
	Policy schedule.Schedule

	// ReadOnlyIdempotent marks the commands on ReadOnly's list idempotent
	// without WithIdempotent, and a pipeline made only of them.
	ReadOnlyIdempotent bool

	// Breaker holds the circuit breakers, one per target; the client's
	// breaker is Breaker.Get of its address, redis.Options.Addr, and it
	// guards every command and pipeline, marked or not. Clients that share
	// a registry share the breaker of an address they share. Nil means a
	// registry of the client's own made from breaker.Config's defaults.
	// To count slow commands too, pass
	// breaker.NewRegistry(breaker.Config{SlowCall: ...}, 0).
	Breaker *breaker.Registry

	// NoBreaker turns the breaker off. It is an error together with
	// Breaker.
	NoBreaker bool

	// Budget holds the retry budgets, one per target: the retries of the
	// commands marked idempotent are bounded by Budget.Get of the client's
	// address (see package budget). Nil means budget.Shared(), the
	// process's default budgets, unless Options.Unthrottled is set; both
	// set is an error.
	Budget *budget.Registry

	// Options is the runner's options for the commands marked idempotent,
	// as package retry documents them, with the adapters' rule: Target,
	// Breaker and Budget are the Hook's to set (Target is the client's
	// address; Breaker and Budget come from the fields above), so an
	// Options that sets any of them is an error from NewClient and
	// Install.
	//
	// AttemptTimeout, when positive, bounds each attempt of a command or
	// pipeline marked idempotent, inside the caller's deadline (the client
	// has ContextTimeoutEnabled, so go-redis honours both); one not marked
	// is bounded by the caller's context and go-redis's own timeouts.
	// MaxPushback has no use here: no Redis error carries a pushback.
	//
	// The Observer's events have the client's address as their Target.
	// The Label of a failed attempt (also retry.Error.Label) is one of a
	// bounded set: "dial" (the connection could not be made),
	// "connection" (it was reset or closed), "timeout" (a read or write
	// timeout), "pool_timeout" (no connection came free in the client's
	// pool), "canceled" (the caller's context ended), the lower-cased
	// prefix of the error replies "loading", "masterdown", "clusterdown",
	// "tryagain", "busy" and "readonly", and "error" for any other reply
	// or error. Code's labels are finer, but an error reply's prefix is
	// whatever a script returns. A successful attempt (redis.Nil
	// included) has no label.
	Options retry.Options
}

// Hook is a redis.Hook that retries the commands marked idempotent on a
// recur schedule and guards every command with one circuit breaker. Make
// one per client with NewClient or Install: the breaker is that of the
// client's address.
type Hook struct {
	s        schedule.Schedule
	o        retry.Options
	readOnly bool
}

// NewClient returns a go-redis client for opt with go-redis's own retries
// off (MaxRetries -1, and DialerRetries 1 unless opt sets it: go-redis
// otherwise dials five times for every attempt, a hidden multiplier that
// no budget sees), ContextTimeoutEnabled set (so that the caller's
// deadline and Options.AttemptTimeout bound every attempt: without
// it go-redis waits its own dial and read timeouts whatever the context
// says) and a Hook built from c, or an error that says what is wrong
// with c. opt is not modified.
func NewClient(opt *redis.Options, c Config) (*redis.Client, error) {
	if opt == nil {
		return nil, errors.New("redisretry: nil *redis.Options")
	}
	o := *opt
	o.MaxRetries = -1
	if o.DialerRetries == 0 {
		o.DialerRetries = 1 // one dial an attempt: the runner decides about retries
	}
	o.ContextTimeoutEnabled = true
	h, err := newHook(c, o.Addr)
	if err != nil {
		return nil, err
	}
	rdb := redis.NewClient(&o)
	rdb.AddHook(h)
	return rdb, nil
}

// Install adds a Hook built from c to rdb, or returns an error if c is
// invalid, if rdb retries on its own (a client made with MaxRetries other
// than -1 would send a command that recur does not retry up to three more
// times, an INCR included), or if rdb ignores its callers' deadlines (a
// client made without ContextTimeoutEnabled waits go-redis's own
// timeouts, seconds, whatever the context or AttemptTimeout says).
func Install(rdb *redis.Client, c Config) (*Hook, error) {
	if rdb == nil {
		return nil, errors.New("redisretry: nil *redis.Client")
	}
	if n := rdb.Options().MaxRetries; n > 0 {
		return nil, fmt.Errorf("redisretry: the client retries on its own (MaxRetries %d): make it with MaxRetries -1", n)
	}
	if !rdb.Options().ContextTimeoutEnabled {
		return nil, errors.New("redisretry: the client ignores its callers' deadlines: make it with ContextTimeoutEnabled true")
	}
	h, err := newHook(c, rdb.Options().Addr)
	if err != nil {
		return nil, err
	}
	rdb.AddHook(h)
	return h, nil
}

func newHook(c Config, addr string) (*Hook, error) {
	if err := c.Options.CheckAdapter(); err != nil {
		return nil, fmt.Errorf("redisretry: %w", err)
	}
	switch {
	case c.Breaker != nil && c.NoBreaker:
		return nil, errors.New("redisretry: Config sets both Breaker and NoBreaker")
	case c.Budget != nil && c.Options.Unthrottled:
		return nil, errors.New("redisretry: Config sets both Budget and Options.Unthrottled")
	}
	s := c.Policy
	if s == nil {
		s = retry.DefaultSchedule()
	}
	if err := schedule.Validate(s); err != nil {
		return nil, fmt.Errorf("redisretry: Policy: %w", err)
	}
	h := &Hook{s: s, o: c.Options, readOnly: c.ReadOnlyIdempotent}
	h.o.Target = addr
	if c.Budget != nil {
		h.o.Budget = c.Budget.Get(addr)
	}
	if !c.NoBreaker {
		reg := c.Breaker
		if reg == nil {
			r, err := breaker.NewRegistry(breaker.Config{}, 0)
			if err != nil {
				return nil, fmt.Errorf("redisretry: Breaker: %w", err)
			}
			reg = r
		}
		h.o.Breaker = reg.Get(addr)
	}
	return h, nil
}

// Breaker returns the client's breaker, or nil with Config.NoBreaker.
func (h *Hook) Breaker() *breaker.Breaker { return h.o.Breaker }

// DialHook returns next: a dial is judged with the command that needs it.
func (h *Hook) DialHook(next redis.DialHook) redis.DialHook {
	return next
}

// ProcessHook retries a command marked idempotent on the schedule and sends any
// other once, through the breaker either way.
func (h *Hook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if setup(cmd.Name()) {
			return next(ctx, cmd)
		}
		if !IsIdempotent(ctx) && !(h.readOnly && ReadOnly(cmd.Name())) {
			return h.once(ctx, cmd, next)
		}
		_, err := retry.Do(ctx, h.o, h.s, judge, nil, func(actx context.Context) (struct{}, error) {
			cmd.SetErr(nil) // the last attempt's error, if any
			err := attempted(ctx, actx, next(actx, cmd))
			if err != nil {
				cmd.SetErr(err)
			}
			return struct{}{}, err
		})
		if err != nil {
			cmd.SetErr(err)
		}
		return err
	}
}

// once sends cmd once through the breaker.
func (h *Hook) once(ctx context.Context, cmd redis.Cmder, next redis.ProcessHook) error {
	b := h.o.Breaker
	if b == nil {
		return next(ctx, cmd)
	}
	p, err := b.Allow()
	if err != nil {
		cmd.SetErr(err)
		return err
	}
	err = next(ctx, cmd)
	b.Record(&p, verdict.Recorded(ctx, Classify(err)))
	return err
}

// AttemptTimedOut is the error of an attempt that Options.AttemptTimeout
// ended while the caller's context was still live: the server was too slow
// (Code says "timeout", a Transient verdict, retried if marked), not
// the caller giving up. It wraps go-redis's error, so errors.Is(err,
// context.DeadlineExceeded) still holds.
type AttemptTimedOut struct{ Err error }

func (e *AttemptTimedOut) Error() string {
	return "redisretry: attempt timed out (AttemptTimeout): " + e.Err.Error()
}

func (e *AttemptTimedOut) Unwrap() error { return e.Err }

// Timeout reports true, as a net.Error's does.
func (e *AttemptTimedOut) Timeout() bool { return true }

// attempted returns err, the outcome of one attempt run with actx inside
// the caller's ctx, as an *AttemptTimedOut if the attempt's own timeout
// ended it.
func attempted(ctx, actx context.Context, err error) error {
	if err != nil && actx.Err() != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return &AttemptTimedOut{Err: err}
	}
	return err
}
