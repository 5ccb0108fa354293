// Package breakertest helps test code that shares circuit breakers through
// a breaker.Store: MemStore is a store kept in memory, so that the breakers
// of one process joined to it under one name behave as the instances of a
// fleet sharing a store such as Redis (package redisbreaker), with every
// message delivered at once.
//
//	store := breakertest.NewMemStore(clock)
//	b, err := breaker.New(breaker.Config{Name: "api", Clock: clock, Shared: store, SharedFlush: -1})
//	// several such breakers are a fleet; b.Flush() exchanges counts by hand.
//
// Give it the breakers' virtual clock: it times the shared window and the
// open and probe deadlines on it. SetDown makes it unreachable, to test
// what a fleet does in an outage of its store. bench/outage simulates a
// fleet of 1,000 instances with one.
package breakertest

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/internal/window"
)

// The shared window's counters.
const (
	cCalls = iota
	cFailures
	cSlow
)

// MemStore is a breaker.Store kept in memory. It is safe for concurrent
// use.
type MemStore struct {
	clock clockcap.Clock
	epoch time.Time // times in the names' windows are ns since it
	down  atomic.Bool

	mu    sync.Mutex
	names map[string]*memName
}

// NewMemStore returns an empty MemStore that reads time from clock (nil
// means clockcap.Real()).
func NewMemStore(clock clockcap.Clock) *MemStore {
	if clock == nil {
		clock = clockcap.Real()
	}
	return &MemStore{clock: clock, epoch: clock.Now(), names: map[string]*memName{}}
}

// SetDown makes every operation of the store's links fail with
// breaker.ErrStoreDown while down is true, as an unreachable store would;
// its state is kept.
func (m *MemStore) SetDown(down bool) { m.down.Store(down) }

// memName is the shared state of one name.
type memName struct {
	state    breaker.SharedState // Remaining unused: deadline holds it
	deadline time.Time
	win      window.Window // the shared window, exact, on the store's clock
	streak   int
	claimed  int
	probes   breaker.Counts
	links    map[*memLink]func(breaker.SharedState)
}

type memLink struct {
	m    *MemStore
	name string
}

// Join implements breaker.Store.
func (m *MemStore) Join(name string, length time.Duration, apply func(breaker.SharedState)) (breaker.Link, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.names[name]
	if n == nil {
		n = &memName{links: map[*memLink]func(breaker.SharedState){}}
		n.win.Init(max(int64(length)/window.Buckets, 1), 1, true)
		m.names[name] = n
	}
	l := &memLink{m: m, name: name}
	n.links[l] = apply
	return l, nil
}

// stateLocked returns n's state with Remaining as of now.
func (n *memName) stateLocked(now time.Time) breaker.SharedState {
	s := n.state
	if s.State == breaker.Open || s.State == breaker.HalfOpen {
		s.Remaining = max(n.deadline.Sub(now), 0)
	}
	return s
}

func (l *memLink) Publish(gen uint64, next breaker.SharedState) (breaker.SharedState, bool, error) {
	if l.m.down.Load() {
		return breaker.SharedState{}, false, breaker.ErrStoreDown
	}
	now := l.m.clock.Now()
	l.m.mu.Lock()
	n := l.m.names[l.name]
	if n.state.Gen != gen {
		s := n.stateLocked(now)
		l.m.mu.Unlock()
		return s, false, nil
	}
	next.Gen = gen + 1
	n.state = next
	n.deadline = now.Add(next.Remaining)
	n.win.ResetLocked(l.m.since(now))
	n.streak, n.claimed, n.probes = 0, 0, breaker.Counts{}
	s := n.stateLocked(now)
	applies := make([]func(breaker.SharedState), 0, len(n.links))
	for o, apply := range n.links {
		if o != l {
			applies = append(applies, apply)
		}
	}
	l.m.mu.Unlock()
	for _, apply := range applies {
		apply(s)
	}
	return s, true, nil
}

func (l *memLink) Claim(gen uint64, k int) (bool, error) {
	if l.m.down.Load() {
		return false, breaker.ErrStoreDown
	}
	l.m.mu.Lock()
	defer l.m.mu.Unlock()
	n := l.m.names[l.name]
	if n.state.Gen != gen || n.state.State != breaker.HalfOpen || n.claimed >= k {
		return false, nil
	}
	n.claimed++
	return true, nil
}

func (l *memLink) Release(gen uint64) error {
	if l.m.down.Load() {
		return breaker.ErrStoreDown
	}
	l.m.mu.Lock()
	defer l.m.mu.Unlock()
	if n := l.m.names[l.name]; n.state.Gen == gen && n.claimed > 0 {
		n.claimed--
	}
	return nil
}

func (l *memLink) Add(gen uint64, b breaker.Batch) (breaker.SharedState, breaker.Counts, error) {
	if l.m.down.Load() {
		return breaker.SharedState{}, breaker.Counts{}, breaker.ErrStoreDown
	}
	now := l.m.clock.Now()
	l.m.mu.Lock()
	defer l.m.mu.Unlock()
	n := l.m.names[l.name]
	s := n.stateLocked(now)
	if n.state.Gen != gen {
		return s, breaker.Counts{}, nil
	}
	switch n.state.State {
	case breaker.HalfOpen:
		n.probes.Calls += b.Calls
		n.probes.Failures += b.Failures
		n.probes.Slow += b.Slow
		return s, n.probes, nil
	case breaker.Closed, breaker.MetricsOnly:
	default:
		return s, breaker.Counts{}, nil
	}
	n.win.FlushLocked(l.m.since(now))
	n.win.AddLocked(cCalls, int64(b.Calls))
	n.win.AddLocked(cFailures, int64(b.Failures))
	n.win.AddLocked(cSlow, int64(b.Slow))
	switch {
	case b.Calls == 0:
	case b.Failures == b.Calls:
		n.streak += b.Failures
	default:
		n.streak = b.Streak
	}
	c := breaker.Counts{Calls: int(n.win.Flushed(cCalls)), Failures: int(n.win.Flushed(cFailures)), Slow: int(n.win.Flushed(cSlow))}
	c.ConsecutiveFailures = n.streak
	return s, c, nil
}

// since returns t in ns since the store's epoch, for the windows.
func (m *MemStore) since(t time.Time) int64 { return max(int64(t.Sub(m.epoch)), 0) }

func (l *memLink) Close() error {
	l.m.mu.Lock()
	defer l.m.mu.Unlock()
	delete(l.m.names[l.name].links, l)
	return nil
}
