package redisretry

import (
	"context"
	"errors"
	"fmt"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
	"github.com/redis/go-redis/v9"
)

// Config says how a client's commands are retried and guarded. The zero
// value is usable: recur's default policy (retry.DefaultSchedule: full
// jitter from 100ms doubling to 2s, three attempts in all) for commands
// marked safe, within the server's shared default budget; a breaker with
// breaker.Config's defaults; no automatic marking.
type Config struct {
	// Schedule is the retry policy of the commands marked safe (WithSafe,
	// or ReadOnlySafe). Set at most one of Schedule and Policy; with
	// neither it is retry.DefaultSchedule().
	Schedule schedule.Schedule

	// Policy is Schedule in recur's policy language, such as
	// "fulljitter(50ms, 1s) & times(3)".
	Policy string

	// ReadOnlySafe marks the commands on ReadOnly's list safe to retry
	// without WithSafe, and a pipeline made only of them.
	ReadOnlySafe bool

	// Retry is the runner's options for the commands marked safe, as
	// package retry documents them; the breaker is Breaker below.
	Retry RetryOptions

	// Breaker configures the client's circuit breaker, which guards every
	// command and pipeline, marked or not. Its Name defaults to the
	// client's address. Set SlowCall to count slow commands.
	Breaker breaker.Config

	// NoBreaker turns the breaker off.
	NoBreaker bool
}

// Hook is a redis.Hook that retries the commands marked safe on a recur
// schedule and guards every command with one circuit breaker. Make one
// per client with NewClient or Install: the breaker is the client's.
type Hook struct {
	s        schedule.Schedule
	o        retry.Options
	readOnly bool
}

// NewClient returns a go-redis client for opt with go-redis's own retries
// off (MaxRetries -1, and DialerRetries 1 unless opt sets it: go-redis
// otherwise dials five times for every attempt, a hidden multiplier that
// no budget sees), ContextTimeoutEnabled set (so that the caller's
// deadline and RetryOptions.AttemptTimeout bound every attempt: without
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
	s := c.Schedule
	switch {
	case s != nil && c.Policy != "":
		return nil, errors.New("redisretry: set Schedule or Policy, not both")
	case c.Policy != "":
		p, err := parse.Parse(c.Policy)
		if err != nil {
			return nil, fmt.Errorf("redisretry: Policy: %w", err)
		}
		s = p
	case s == nil:
		s = retry.DefaultSchedule()
	}
	if err := schedule.Validate(s); err != nil {
		return nil, fmt.Errorf("redisretry: Schedule: %w", err)
	}
	if c.Retry.AttemptTimeout < 0 {
		return nil, fmt.Errorf("redisretry: Retry.AttemptTimeout %v is negative", c.Retry.AttemptTimeout)
	}
	if c.Retry.Unthrottled && c.Retry.Budget != nil {
		return nil, errors.New("redisretry: set Retry.Budget or Retry.Unthrottled, not both")
	}
	h := &Hook{s: s, o: c.Retry.runner(), readOnly: c.ReadOnlySafe}
	h.o.Target = addr
	if !c.NoBreaker {
		bc := c.Breaker
		if bc.Name == "" {
			bc.Name = "redis " + addr
		}
		b, err := breaker.New(bc)
		if err != nil {
			return nil, fmt.Errorf("redisretry: Breaker: %w", err)
		}
		h.o.Breaker = b
	}
	return h, nil
}

// Breaker returns the client's breaker, or nil with Config.NoBreaker.
func (h *Hook) Breaker() *breaker.Breaker { return h.o.Breaker }

// DialHook returns next: a dial is judged with the command that needs it.
func (h *Hook) DialHook(next redis.DialHook) redis.DialHook {
	return next
}

// ProcessHook retries a command marked safe on the schedule and sends any
// other once, through the breaker either way.
func (h *Hook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if setup(cmd.Name()) {
			return next(ctx, cmd)
		}
		if !Safe(ctx) && !(h.readOnly && ReadOnly(cmd.Name())) {
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
	v := Classify(err)
	if err != nil && ctx.Err() != nil {
		v = verdict.Neutral // the caller gave up
	}
	b.Record(&p, v)
	return err
}

// AttemptTimedOut is the error of an attempt that RetryOptions.AttemptTimeout
// ended while the caller's context was still live: the server was too slow
// (Code says "timeout", a Transient verdict, retried if marked safe), not
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
