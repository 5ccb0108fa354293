package redisbreaker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	// DefaultFlushMin and DefaultFlushMax bound how often a Store sends
	// its breakers' batches (see Config.FlushMin).
	DefaultFlushMin = 5 * time.Millisecond
	DefaultFlushMax = time.Second
)

// The largest values a Store takes from Redis; a larger one (or a
// negative one, or a state no breaker has) is a bad answer.
const (
	// MaxOpenings is the largest opening count (SharedState.Openings).
	MaxOpenings = 1 << 20
	// MaxCount is the largest count of calls, failures, slow calls or
	// failures in a row.
	MaxCount = 1 << 40
)

// ErrBadAnswer is matched (errors.Is) by the error of an operation that
// Redis answered with something no breaker wrote: a key of the wrong
// type, a field that is not an integer, a value out of range (a state no
// breaker has, a negative count, an open duration longer than the keys'
// TTL, more openings than MaxOpenings). The error also matches
// breaker.ErrStoreDown, so the breaker concerned judges its own counts,
// as with Redis down, until Redis answers sensibly again; Stats counts
// these answers and Config.Logger hears of them.
var ErrBadAnswer = errors.New("redisbreaker: Redis holds a value no breaker wrote")

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

	// FlushMin and FlushMax bound how often the Store sends its breakers'
	// batches. It sends those of every breaker joined to it together, in
	// one pipeline (one round trip, one script call per breaker with
	// something to send). A batch that carries a failure, a slow call or
	// a probe's outcome goes in the next round, at most FlushMin after
	// the previous one. Any other batch (successes, or a read) waits its
	// breaker's hold: FlushMin at first, doubled after each answer that
	// shows the fleet's window clean (closed, no failure, no slow call,
	// no streak), up to FlushMax, and back to FlushMin after any other.
	// So a healthy busy target costs one script call a FlushMax, one
	// whose window holds a failure one every FlushMin. Defaults
	// DefaultFlushMin (5 ms) and DefaultFlushMax (1 s); FlushMax must not
	// be below FlushMin.
	FlushMin, FlushMax time.Duration

	// Logger, if not nil, gets a warning when Redis answers with a value
	// no breaker wrote (see ErrBadAnswer) or a malformed message arrives
	// on a breaker's channel: at most one record a second.
	Logger *slog.Logger
}

// Stats are a Store's counters, for metrics.
type Stats struct {
	// Rounds counts the round trips that carried breakers' batches, and
	// Batches the batches they carried (one per breaker per round).
	Rounds, Batches uint64
	// Failed counts operations Redis did not answer in time, or that the
	// guard refused because it is open.
	Failed uint64
	// BadAnswers counts answers with a value no breaker wrote (see
	// ErrBadAnswer): the breaker concerned judged alone.
	BadAnswers uint64
	// BadMessages counts messages on a breaker's channel that were not a
	// state a breaker can take: ignored.
	BadMessages uint64
}

// Store is a breaker.Store kept in Redis. Make one with New and give it
// to the breakers of a fleet as breaker.Config.Shared. One Store serves
// every breaker of a process (a Registry's targets included): it sends
// all their batches together, in one pipeline per round.
type Store struct {
	rdb      *redis.Client
	prefix   string
	timeout  time.Duration
	ttl      int64 // ms
	maxDelay int64 // µs: the longest open duration taken from Redis (the TTL)
	guard    *breaker.Breaker
	min, max time.Duration
	logger   *slog.Logger
	lastLog  atomic.Int64 // unix ns of the last warning

	wake chan struct{} // a batch arrived, or a link left

	mu      sync.Mutex
	queue   []*addReq // batches waiting for the next round
	due     time.Time // when the first of them must go
	urgent  bool      // one of them carries a failure, a slow call or a probe
	last    time.Time // when the last round was sent
	links   int       // links joined and not closed
	running bool      // the round loop runs

	rounds, batches, failed, badAnswers, badMessages atomic.Uint64
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
	case c.FlushMin < 0 || c.FlushMax < 0:
		return nil, fmt.Errorf("redisbreaker: Config.FlushMin = %v, FlushMax = %v: negative", c.FlushMin, c.FlushMax)
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
	if c.FlushMin == 0 {
		c.FlushMin = DefaultFlushMin
	}
	if c.FlushMax == 0 {
		c.FlushMax = max(DefaultFlushMax, c.FlushMin)
	}
	if c.FlushMax < c.FlushMin {
		return nil, fmt.Errorf("redisbreaker: Config.FlushMax = %v is below FlushMin = %v", c.FlushMax, c.FlushMin)
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
	return &Store{rdb: c.Client, prefix: c.Prefix, timeout: c.Timeout, ttl: max(c.TTL.Milliseconds(), 1),
		maxDelay: max(c.TTL.Microseconds(), 1), guard: guard, min: c.FlushMin, max: c.FlushMax, logger: c.Logger,
		wake: make(chan struct{}, 1)}, nil
}

// Guard returns the breaker that guards Redis, for its Stats and State.
func (s *Store) Guard() *breaker.Breaker { return s.guard }

// Stats returns the Store's counters.
func (s *Store) Stats() Stats {
	return Stats{Rounds: s.rounds.Load(), Batches: s.batches.Load(), Failed: s.failed.Load(),
		BadAnswers: s.badAnswers.Load(), BadMessages: s.badMessages.Load()}
}

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
	l := &link{s: s, name: name, width: max(window/10, time.Millisecond).Microseconds(), done: make(chan struct{})}
	l.hold.Store(int64(s.min))
	l.taken = time.Now()
	l.keys[0], l.keys[1], l.keys[2], l.channel = s.Keys(name)
	s.mu.Lock()
	s.links++
	if !s.running {
		s.running = true
		go s.loop()
	}
	s.mu.Unlock()
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
			st, err := s.parseState(m.Payload)
			if err != nil {
				s.badMessages.Add(1)
				s.warn("redisbreaker: a message on a breaker's channel is no state a breaker can take; ignored",
					slog.String("breaker", name), slog.String("channel", l.channel), slog.Any("err", err))
				continue
			}
			apply(st)
		}
	}()
	return l, nil
}

// warn logs msg at Warn, at most once a second.
func (s *Store) warn(msg string, attrs ...slog.Attr) {
	if s.logger == nil {
		return
	}
	now := time.Now().UnixNano()
	last := s.lastLog.Load()
	if now-last < int64(time.Second) || !s.lastLog.CompareAndSwap(last, now) {
		return
	}
	s.logger.LogAttrs(context.Background(), slog.LevelWarn, msg, attrs...)
}

// link is one breaker's Link to the Store.
type link struct {
	s       *Store
	name    string
	keys    [3]string // state, window, probes
	channel string
	width   int64 // the window's bucket width, µs
	ps      *redis.PubSub
	done    chan struct{}
	once    sync.Once
	// probing is set by a granted Claim and cleared by an answer that is
	// not half-open: an Add meanwhile is a probe's outcome, sent from
	// Record on the caller's goroutine, so it goes at once.
	probing atomic.Bool
	// hold is how long a batch of successes waits for its round (see
	// Config.FlushMin); ns.
	hold atomic.Int64
	// hurried is set by a Hurry that found no batch of the link waiting:
	// the next one goes in the next round.
	hurried atomic.Bool
	// taken is when the link's last batch was sent; the round loop's.
	taken time.Time
}

// bad returns the error of an answer no breaker wrote, counted and
// logged.
func (l *link) bad(op string, detail error) error {
	l.s.badAnswers.Add(1)
	l.s.warn("redisbreaker: Redis holds a value no breaker wrote; the breaker judges alone",
		slog.String("breaker", l.name), slog.String("op", op), slog.Any("err", detail))
	return fmt.Errorf("%w: %w: %s: %w", breaker.ErrStoreDown, ErrBadAnswer, op, detail)
}

// failure records a Redis operation that got no answer (err) with the
// guard's permit p, and returns the error to give: ErrStoreDown if that
// failure opened the guard.
func (s *Store) failure(p *breaker.Permit, err error) error {
	s.failed.Add(1)
	s.guard.Record(p, verdict.Failure)
	if s.guard.State() != breaker.Closed {
		return fmt.Errorf("%w: %w", breaker.ErrStoreDown, err)
	}
	return fmt.Errorf("redisbreaker: %w", err)
}

// replied reports whether err is Redis's error reply (a script's error
// included), rather than no answer.
func replied(err error) bool {
	_, ok := errors.AsType[redis.Error](err)
	return ok
}

// run runs script through the guard, within the timeout. An error reply
// (a key of the wrong type, a BADVALUE from the script) is a bad answer:
// Redis answered, so the guard counts a success, but the breaker
// concerned is told the store is down, and judges alone.
func (l *link) run(op string, script *redis.Script, keys []string, args ...any) ([]int64, error) {
	p, err := l.s.guard.Allow()
	if err != nil {
		l.s.failed.Add(1)
		return nil, fmt.Errorf("%w: %w", breaker.ErrStoreDown, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), l.s.timeout)
	defer cancel()
	v, err := script.Run(ctx, l.s.rdb, keys, args...).Int64Slice()
	switch {
	case err == nil:
		l.s.guard.Record(&p, verdict.Success)
		return v, nil
	case replied(err):
		l.s.guard.Record(&p, verdict.Success)
		return nil, l.bad(op, err)
	}
	return nil, l.s.failure(&p, err)
}

func (l *link) Publish(gen uint64, next breaker.SharedState) (breaker.SharedState, bool, error) {
	v, err := l.run("publish", publishScript, l.keys[:], gen, int(next.State), next.Openings,
		next.Remaining.Microseconds(), next.Delay.Microseconds(), l.channel, l.s.ttl)
	if err != nil {
		return breaker.SharedState{}, false, err
	}
	if len(v) != 6 || v[0] < 0 || v[0] > 1 {
		return breaker.SharedState{}, false, l.bad("publish", fmt.Errorf("answer %v", v))
	}
	st, err := l.s.state(v[1:])
	if err != nil {
		return breaker.SharedState{}, false, l.bad("publish", err)
	}
	if st.State != breaker.HalfOpen {
		l.probing.Store(false)
	}
	return st, v[0] == 1, nil
}

func (l *link) Claim(gen uint64, n int) (bool, error) {
	v, err := l.run("claim", claimScript, []string{l.keys[0], l.keys[2]}, gen, n, l.s.ttl)
	if err != nil {
		return false, err
	}
	if len(v) != 1 || v[0] < 0 || v[0] > 1 {
		return false, l.bad("claim", fmt.Errorf("answer %v", v))
	}
	if v[0] == 1 {
		l.probing.Store(true)
	}
	return v[0] == 1, nil
}

func (l *link) Release(gen uint64) error {
	_, err := l.run("release", releaseScript, []string{l.keys[0], l.keys[2]}, gen)
	return err
}

// addReq is one Add waiting for its round.
type addReq struct {
	l     *link
	take  func() (uint64, breaker.Batch) // the generation and batch, when the round is made up
	gen   uint64
	b     breaker.Batch
	since time.Duration  // from the link's previous batch to this one
	done  chan addResult // buffered: the round never waits for the caller
}

type addResult struct {
	st  breaker.SharedState
	c   breaker.Counts
	err error
}

// Add implements breaker.Link: the batch waits for the Store's next round,
// which sends it with every other breaker's (see Config.FlushMin).
func (l *link) Add(gen uint64, b breaker.Batch) (breaker.SharedState, breaker.Counts, error) {
	return l.wait(&addReq{l: l, gen: gen, b: b}, b.Failures > 0 || b.Slow > 0 || l.probing.Load())
}

// AddLazy implements breaker.LazyAdder: the breaker's batch is taken when
// the round is made up, so that it carries every outcome until then.
func (l *link) AddLazy(take func() (uint64, breaker.Batch)) (breaker.SharedState, breaker.Counts, error) {
	return l.wait(&addReq{l: l, take: take}, l.hurried.Swap(false) || l.probing.Load())
}

// wait queues r for a round (the next one if urgent, else within the
// link's hold) and returns its answer.
func (l *link) wait(r *addReq, urgent bool) (breaker.SharedState, breaker.Counts, error) {
	r.done = make(chan addResult, 1)
	s := l.s
	due := time.Now().Add(time.Duration(l.hold.Load()))
	s.mu.Lock()
	if len(s.queue) == 0 || due.Before(s.due) {
		s.due = due
	}
	s.queue = append(s.queue, r)
	if urgent {
		s.urgent = true
	}
	s.mu.Unlock()
	s.poke()
	res := <-r.done
	return res.st, res.c, res.err
}

// Hurry implements breaker.Hurrier: the breaker counted a failure, so a
// batch of its waiting for a later round goes in the next one (taken
// then, with the failure in it).
func (l *link) Hurry() {
	s := l.s
	s.mu.Lock()
	held := false
	for _, r := range s.queue {
		if r.l == l {
			held = true
			break
		}
	}
	if held {
		s.urgent = true
	} else {
		l.hurried.Store(true) // the flusher's next batch, then
	}
	s.mu.Unlock()
	if held {
		s.poke()
	}
	l.hold.Store(int64(s.min))
}

func (s *Store) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// loop sends the rounds, while a link is joined or a batch waits.
func (s *Store) loop() {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		s.mu.Lock()
		n := len(s.queue)
		if n == 0 && s.links == 0 {
			s.running = false
			s.mu.Unlock()
			return
		}
		var wait time.Duration
		switch {
		case n == 0:
			wait = -1
		case s.urgent:
			wait = s.min - time.Since(s.last)
		default:
			wait = time.Until(s.due)
		}
		if n > 0 && wait <= 0 {
			items := s.queue
			s.queue, s.urgent = nil, false
			s.mu.Unlock()
			s.round(items)
			s.mu.Lock()
			s.last = time.Now()
			s.mu.Unlock()
			continue
		}
		s.mu.Unlock()
		if wait < 0 {
			<-s.wake
			continue
		}
		t.Reset(wait)
		select {
		case <-s.wake:
			t.Stop()
		case <-t.C:
		}
	}
}

// round sends items, the batches of any number of breakers, in one
// pipeline within the timeout, and answers each.
func (s *Store) round(items []*addReq) {
	s.rounds.Add(1)
	s.batches.Add(uint64(len(items)))
	all := func(err error) {
		for _, it := range items {
			it.done <- addResult{err: err}
		}
	}
	p, err := s.guard.Allow()
	if err != nil {
		s.failed.Add(1)
		all(fmt.Errorf("%w: %w", breaker.ErrStoreDown, err))
		return
	}
	for _, it := range items {
		if it.take != nil {
			it.gen, it.b = it.take()
		}
		now := time.Now()
		it.since = now.Sub(it.l.taken)
		it.l.taken = now
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	cmds := s.send(ctx, items)
	if cmds != nil && noScript(cmds) {
		if err := addScript.Load(ctx, s.rdb).Err(); err == nil {
			cmds = s.send(ctx, items)
		}
	}
	for _, c := range cmds {
		if err := c.Err(); err != nil && !replied(err) {
			all(s.failure(&p, err))
			return
		}
	}
	s.guard.Record(&p, verdict.Success)
	for i, it := range items {
		st, c, err := it.l.answer(cmds[i])
		it.l.pace(it.b, st, c, err)
		it.done <- addResult{st, c, err}
	}
}

// send pipelines one EVALSHA of addScript per item.
func (s *Store) send(ctx context.Context, items []*addReq) []*redis.Cmd {
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.Cmd, len(items))
	for i, it := range items {
		l := it.l
		cmds[i] = addScript.EvalSha(ctx, pipe, l.keys[:], it.gen, l.width, it.b.Calls, it.b.Failures, it.b.Slow, it.b.Streak, s.ttl,
			it.since.Microseconds())
	}
	_, _ = pipe.Exec(ctx) // each command carries its own error
	return cmds
}

func noScript(cmds []*redis.Cmd) bool {
	for _, c := range cmds {
		if err := c.Err(); err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
			return true
		}
	}
	return false
}

// answer decodes and checks the answer to one Add.
func (l *link) answer(c *redis.Cmd) (breaker.SharedState, breaker.Counts, error) {
	v, err := c.Int64Slice()
	if err != nil {
		return breaker.SharedState{}, breaker.Counts{}, l.bad("add", err)
	}
	if len(v) != 9 {
		return breaker.SharedState{}, breaker.Counts{}, l.bad("add", fmt.Errorf("answer of %d values", len(v)))
	}
	st, err := l.s.state(v[:5])
	if err != nil {
		return breaker.SharedState{}, breaker.Counts{}, l.bad("add", err)
	}
	calls, fails, slow, streak := v[5], v[6], v[7], v[8]
	if calls < 0 || calls > MaxCount || fails < 0 || fails > calls || slow < 0 || slow > calls || streak < 0 || streak > MaxCount {
		return breaker.SharedState{}, breaker.Counts{}, l.bad("add", fmt.Errorf("counts %v out of range", v[5:]))
	}
	if st.State != breaker.HalfOpen {
		l.probing.Store(false)
	}
	return st, breaker.Counts{Calls: int(calls), Failures: int(fails), Slow: int(slow), ConsecutiveFailures: int(streak)}, nil
}

// pace sets the link's hold after an answer to batch b: doubled (up to
// FlushMax) if the batch and the fleet's window are clean, back to the
// start otherwise.
func (l *link) pace(b breaker.Batch, st breaker.SharedState, c breaker.Counts, err error) {
	if err == nil && b.Failures == 0 && b.Slow == 0 && st.State == breaker.Closed && c.Failures == 0 && c.Slow == 0 && c.ConsecutiveFailures == 0 {
		l.hold.Store(int64(min(2*time.Duration(l.hold.Load()), l.s.max)))
		return
	}
	l.hold.Store(int64(l.s.min))
}

func (l *link) Close() error {
	var err error
	l.once.Do(func() {
		err = l.ps.Close()
		<-l.done
		l.s.mu.Lock()
		l.s.links--
		l.s.mu.Unlock()
		l.s.poke()
	})
	return err
}

// state decodes and checks {gen, state, k, remaining µs, delay µs}: a
// known state, no negative number, at most MaxOpenings openings, an open
// duration within the keys' TTL and a remaining time within it (1 ms of
// rounding allowed).
func (s *Store) state(v []int64) (breaker.SharedState, error) {
	gen, st, k, rem, delay := v[0], v[1], v[2], v[3], v[4]
	switch {
	case gen < 0:
		return breaker.SharedState{}, fmt.Errorf("generation %d", gen)
	case st < 0 || st > int64(breaker.MetricsOnly):
		return breaker.SharedState{}, fmt.Errorf("state %d", st)
	case k < 0 || k > MaxOpenings:
		return breaker.SharedState{}, fmt.Errorf("opening count %d", k)
	case delay < 0 || delay > s.maxDelay:
		return breaker.SharedState{}, fmt.Errorf("open duration %dµs", delay)
	case rem < 0 || rem > delay+1000:
		return breaker.SharedState{}, fmt.Errorf("remaining %dµs of an open duration of %dµs", rem, delay)
	}
	return breaker.SharedState{
		Gen:       uint64(gen),
		State:     breaker.State(st),
		Openings:  int(k),
		Remaining: time.Duration(rem) * time.Microsecond,
		Delay:     time.Duration(delay) * time.Microsecond,
	}, nil
}

// parseState decodes a message of the channel: "gen state k remaining
// delay", the times in µs, and checks it as state does.
func (s *Store) parseState(msg string) (breaker.SharedState, error) {
	if len(msg) > 128 {
		return breaker.SharedState{}, fmt.Errorf("a message of %d bytes", len(msg))
	}
	f := strings.Fields(msg)
	if len(f) != 5 {
		return breaker.SharedState{}, fmt.Errorf("bad message %q", msg)
	}
	var v [5]int64
	for i, w := range f {
		n, err := strconv.ParseInt(w, 10, 64)
		if err != nil {
			return breaker.SharedState{}, fmt.Errorf("bad message %q", msg)
		}
		v[i] = n
	}
	return s.state(v[:])
}
