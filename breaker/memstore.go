package breaker

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/internal/window"
)

// MemStore is a Store kept in memory: breakers of one process joined to
// it under one name behave as the instances of a fleet that share a store
// such as Redis, with messages delivered at once. It is for tests and
// simulations (bench/outage simulates a fleet of 1,000 instances with
// one). Its clock times the shared window and the open and probe
// deadlines; SetDown makes it unreachable. It is safe for concurrent use.
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
// ErrStoreDown while down is true, as an unreachable store would; its
// state is kept.
func (m *MemStore) SetDown(down bool) { m.down.Store(down) }

// memName is the shared state of one name.
type memName struct {
	state    SharedState // Remaining unused: deadline holds it
	deadline time.Time
	win      window.Window // the shared window, exact, on the store's clock
	streak   int
	claimed  int
	probes   Counts
	links    map[*memLink]func(SharedState)
}

type memLink struct {
	m    *MemStore
	name string
}

// Join implements Store.
func (m *MemStore) Join(name string, length time.Duration, apply func(SharedState)) (Link, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.names[name]
	if n == nil {
		n = &memName{links: map[*memLink]func(SharedState){}}
		n.win.Init(max(int64(length)/window.Buckets, 1), 1, true)
		m.names[name] = n
	}
	l := &memLink{m: m, name: name}
	n.links[l] = apply
	return l, nil
}

// stateLocked returns n's state with Remaining as of now.
func (n *memName) stateLocked(now time.Time) SharedState {
	s := n.state
	if s.State == Open || s.State == HalfOpen {
		s.Remaining = max(n.deadline.Sub(now), 0)
	}
	return s
}

func (l *memLink) Publish(gen uint64, next SharedState) (SharedState, bool, error) {
	if l.m.down.Load() {
		return SharedState{}, false, ErrStoreDown
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
	n.streak, n.claimed, n.probes = 0, 0, Counts{}
	s := n.stateLocked(now)
	applies := make([]func(SharedState), 0, len(n.links))
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
		return false, ErrStoreDown
	}
	l.m.mu.Lock()
	defer l.m.mu.Unlock()
	n := l.m.names[l.name]
	if n.state.Gen != gen || n.state.State != HalfOpen || n.claimed >= k {
		return false, nil
	}
	n.claimed++
	return true, nil
}

func (l *memLink) Release(gen uint64) error {
	if l.m.down.Load() {
		return ErrStoreDown
	}
	l.m.mu.Lock()
	defer l.m.mu.Unlock()
	if n := l.m.names[l.name]; n.state.Gen == gen && n.claimed > 0 {
		n.claimed--
	}
	return nil
}

func (l *memLink) Add(gen uint64, b Batch) (SharedState, Counts, error) {
	if l.m.down.Load() {
		return SharedState{}, Counts{}, ErrStoreDown
	}
	now := l.m.clock.Now()
	l.m.mu.Lock()
	defer l.m.mu.Unlock()
	n := l.m.names[l.name]
	s := n.stateLocked(now)
	if n.state.Gen != gen {
		return s, Counts{}, nil
	}
	switch n.state.State {
	case HalfOpen:
		n.probes.Calls += b.Calls
		n.probes.Failures += b.Failures
		n.probes.Slow += b.Slow
		return s, n.probes, nil
	case Closed, MetricsOnly:
	default:
		return s, Counts{}, nil
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
	c := Counts{Calls: int(n.win.Flushed(cCalls)), Failures: int(n.win.Flushed(cFailures)), Slow: int(n.win.Flushed(cSlow))}
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
