package redisbreaker

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
	"github.com/redis/go-redis/v9"
)

// Defaults for the zero fields of Config.
const (
	DefaultPrefix  = "recur:breaker:"
	DefaultTimeout = 50 * time.Millisecond
	// DefaultTTL is how long a breaker's keys live after their last
	// write.
	DefaultTTL = 24 * time.Hour
)

// DefaultGuard is the breaker that guards Redis itself when
// Config.Guard is the zero Config: it opens after 3 failed operations in
// a row, for 250 ms, then twice as long up to 2 s while Redis stays
// unreachable. While it is open every operation fails at once and the
// fleet's breakers run on their own counts.
var DefaultGuard = breaker.Config{
	Name:                "redis",
	ConsecutiveFailures: 3,
	OpenFor:             schedule.Exponential{Base: 250 * time.Millisecond, FactorPct: 200, Cap: 2 * time.Second},
}

// Config configures a Store.
type Config struct {
	// Client is the Redis client; required. It must have
	// ContextTimeoutEnabled set, so that Timeout bounds every operation
	// (an error from New otherwise). Close it after the breakers.
	Client *redis.Client

	// Prefix starts every key and channel name; default DefaultPrefix.
	Prefix string

	// Timeout bounds every Redis operation; default DefaultTimeout.
	Timeout time.Duration

	// TTL is how long a breaker's keys live after their last write;
	// default DefaultTTL.
	TTL time.Duration

	// Guard configures the local breaker that guards Redis; the zero
	// Config means DefaultGuard. It cannot itself have a Shared store.
	Guard breaker.Config
}

// Store is a breaker.Store kept in Redis. Make one with New and give it
// to the breakers of a fleet as breaker.Config.Shared.
type Store struct {
	rdb     *redis.Client
	prefix  string
	timeout time.Duration
	ttl     int64 // ms
	guard   *breaker.Breaker
}

// New returns a Store over c.Client, or an error that names the bad field
// of c.
func New(c Config) (*Store, error) {
	switch {
	case c.Client == nil:
		return nil, errors.New("redisbreaker: Config.Client is nil")
	case !c.Client.Options().ContextTimeoutEnabled:
		return nil, errors.New("redisbreaker: Config.Client must have Options.ContextTimeoutEnabled set, so that Config.Timeout bounds every operation")
	case c.Timeout < 0:
		return nil, fmt.Errorf("redisbreaker: Config.Timeout = %v is negative", c.Timeout)
	case c.TTL < 0:
		return nil, fmt.Errorf("redisbreaker: Config.TTL = %v is negative", c.TTL)
	case c.Guard.Shared != nil:
		return nil, errors.New("redisbreaker: Config.Guard.Shared is set: the breaker that guards Redis cannot keep its state there")
	}
	if c.Prefix == "" {
		c.Prefix = DefaultPrefix
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.TTL == 0 {
		c.TTL = DefaultTTL
	}
	g := c.Guard
	if g.Name == "" && g.OpenFor == nil && g.ConsecutiveFailures == 0 && g.FailureRate == 0 && g.TripWhen == nil {
		g.ConsecutiveFailures, g.OpenFor = DefaultGuard.ConsecutiveFailures, DefaultGuard.OpenFor
	}
	if g.Name == "" {
		g.Name = DefaultGuard.Name
	}
	guard, err := breaker.New(g)
	if err != nil {
		return nil, fmt.Errorf("redisbreaker: Config.Guard: %w", err)
	}
	return &Store{rdb: c.Client, prefix: c.Prefix, timeout: c.Timeout, ttl: max(c.TTL.Milliseconds(), 1), guard: guard}, nil
}

// Guard returns the breaker that guards Redis, for its Stats and State.
func (s *Store) Guard() *breaker.Breaker { return s.guard }

// Keys returns the keys and the channel a breaker named name uses: its
// state, window and probes hashes and its pub/sub channel. The name is in
// braces, a Redis Cluster hash tag, so that the three keys live in one
// slot, as the scripts need.
func (s *Store) Keys(name string) (state, window, probes, channel string) {
	base := s.prefix + "{" + name + "}:"
	return base + "state", base + "window", base + "probes", base + "events"
}

// Join implements breaker.Store: it subscribes to the name's channel and
// returns the breaker's link. It does not wait for Redis: if Redis is
// unreachable the subscription connects when it can.
func (s *Store) Join(name string, window time.Duration, apply func(breaker.SharedState)) (breaker.Link, error) {
	l := &link{s: s, width: max(window/10, time.Millisecond).Microseconds(), done: make(chan struct{})}
	l.keys[0], l.keys[1], l.keys[2], l.channel = s.Keys(name)
	// The subscription is made on the link's goroutine, so that Join
	// never waits for a dial; a failed one is made again when the
	// channel reconnects, which remembers its channels.
	l.ps = s.rdb.Subscribe(context.Background())
	ch := l.ps.Channel(redis.WithChannelHealthCheckInterval(time.Second), redis.WithChannelPingTimeout(s.timeout*4),
		redis.WithChannelReconnectTimeout(s.timeout*4))
	go func() {
		defer close(l.done)
		ctx, cancel := context.WithTimeout(context.Background(), s.timeout*4)
		_ = l.ps.Subscribe(ctx, l.channel)
		cancel()
		for m := range ch {
			if st, err := parseState(m.Payload); err == nil {
				apply(st)
			}
		}
	}()
	return l, nil
}

// link is one breaker's Link to the Store.
type link struct {
	s       *Store
	keys    [3]string // state, window, probes
	channel string
	width   int64 // the window's bucket width, µs
	ps      *redis.PubSub
	done    chan struct{}
	once    sync.Once
}

// run runs script through the guard, within the timeout.
func (l *link) run(script *redis.Script, keys []string, args ...any) ([]int64, error) {
	p, err := l.s.guard.Allow()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", breaker.ErrStoreDown, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), l.s.timeout)
	defer cancel()
	v, err := script.Run(ctx, l.s.rdb, keys, args...).Int64Slice()
	if err == nil {
		l.s.guard.Record(&p, verdict.Success)
		return v, nil
	}
	if _, replied := errors.AsType[redis.Error](err); replied {
		l.s.guard.Record(&p, verdict.Success) // Redis answered: a script error is a bug, not an outage
		return nil, fmt.Errorf("redisbreaker: %w", err)
	}
	l.s.guard.Record(&p, verdict.Failure)
	if l.s.guard.State() != breaker.Closed {
		return nil, fmt.Errorf("%w: %w", breaker.ErrStoreDown, err) // that failure opened the guard
	}
	return nil, fmt.Errorf("redisbreaker: %w", err)
}

func (l *link) Publish(gen uint64, next breaker.SharedState) (breaker.SharedState, bool, error) {
	v, err := l.run(publishScript, l.keys[:], gen, int(next.State), next.Openings,
		next.Remaining.Microseconds(), next.Delay.Microseconds(), l.channel, l.s.ttl)
	if err != nil {
		return breaker.SharedState{}, false, err
	}
	if len(v) != 6 {
		return breaker.SharedState{}, false, fmt.Errorf("redisbreaker: publish returned %d values", len(v))
	}
	return stateOf(v[1:]), v[0] == 1, nil
}

func (l *link) Claim(gen uint64, n int) (bool, error) {
	v, err := l.run(claimScript, []string{l.keys[0], l.keys[2]}, gen, n, l.s.ttl)
	if err != nil {
		return false, err
	}
	return len(v) == 1 && v[0] == 1, nil
}

func (l *link) Release(gen uint64) error {
	_, err := l.run(releaseScript, []string{l.keys[0], l.keys[2]}, gen)
	return err
}

func (l *link) Add(gen uint64, b breaker.Batch) (breaker.SharedState, breaker.Counts, error) {
	v, err := l.run(addScript, l.keys[:], gen, l.width, b.Calls, b.Failures, b.Slow, b.Streak, l.s.ttl)
	if err != nil {
		return breaker.SharedState{}, breaker.Counts{}, err
	}
	if len(v) != 9 {
		return breaker.SharedState{}, breaker.Counts{}, fmt.Errorf("redisbreaker: add returned %d values", len(v))
	}
	c := breaker.Counts{Calls: int(v[5]), Failures: int(v[6]), Slow: int(v[7]), ConsecutiveFailures: int(v[8])}
	return stateOf(v[:5]), c, nil
}

func (l *link) Close() error {
	var err error
	l.once.Do(func() {
		err = l.ps.Close()
		<-l.done
	})
	return err
}

// stateOf decodes {gen, state, k, remaining µs, delay µs}.
func stateOf(v []int64) breaker.SharedState {
	return breaker.SharedState{
		Gen:       uint64(v[0]),
		State:     breaker.State(v[1]),
		Openings:  int(v[2]),
		Remaining: time.Duration(v[3]) * time.Microsecond,
		Delay:     time.Duration(v[4]) * time.Microsecond,
	}
}

// parseState decodes a message of the channel: "gen state k remaining
// delay", the times in µs.
func parseState(msg string) (breaker.SharedState, error) {
	f := strings.Fields(msg)
	if len(f) != 5 {
		return breaker.SharedState{}, fmt.Errorf("redisbreaker: bad message %q", msg)
	}
	var v [5]int64
	for i, s := range f {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return breaker.SharedState{}, fmt.Errorf("redisbreaker: bad message %q", msg)
		}
		v[i] = n
	}
	return stateOf(v[:]), nil
}
