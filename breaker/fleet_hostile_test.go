package breaker_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/breaker/breakertest"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

// rigged is a Store over a MemStore whose Add can be made to fail (an
// error that is not ErrStoreDown: one timed-out operation) and whose
// notices the test can send itself.
type rigged struct {
	*breakertest.MemStore
	failAdd atomic.Int32 // Adds still to fail
	mu      sync.Mutex
	applies []func(breaker.SharedState)
}

type riggedLink struct {
	breaker.Link
	r *rigged
}

var errTimedOut = errors.New("rigged: timed out")

func (r *rigged) Join(name string, window time.Duration, apply func(breaker.SharedState)) (breaker.Link, error) {
	l, err := r.MemStore.Join(name, window, apply)
	r.mu.Lock()
	r.applies = append(r.applies, apply)
	r.mu.Unlock()
	return riggedLink{l, r}, err
}

func (l riggedLink) Add(gen uint64, b breaker.Batch) (breaker.SharedState, breaker.Counts, error) {
	if l.r.failAdd.Add(-1) >= 0 {
		return breaker.SharedState{}, breaker.Counts{}, errTimedOut
	}
	return l.Link.Add(gen, b)
}

// send delivers s to every joined breaker, as a store's notice would.
func (r *rigged) send(s breaker.SharedState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, apply := range r.applies {
		apply(s)
	}
}

func riggedBreaker(t *testing.T, c breaker.Config) (*breaker.Breaker, *rigged, *clockcap.VirtualClock) {
	t.Helper()
	clock := clockcap.Virtual(epoch)
	r := &rigged{MemStore: breakertest.NewMemStore(clock)}
	c.Name, c.Clock, c.Random, c.Shared, c.SharedFlush = "api", clock, randcap.Seeded(1), r, -1
	b, err := breaker.New(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b, r, clock
}

// A batch whose Add failed (one operation timed out; the store is not
// known down) stays counted and goes with the next flush: 4 failures in a
// row against a rule of 3 open the breaker, whichever flush failed.
func TestFleetUnacknowledgedBatchResent(t *testing.T) {
	for fail := range 3 {
		b, r, _ := riggedBreaker(t, breaker.Config{ConsecutiveFailures: 3})
		for i := range 4 {
			call(b, verdict.Transient)
			if i == fail {
				r.failAdd.Store(1)
			}
			b.Flush()
			if b.State() == breaker.Open {
				break
			}
		}
		if diff := cmp.Diff(breaker.Open, b.State()); diff != "" {
			t.Errorf("Add of flush %d failed: (-want +got)\n%s", fail, diff)
		}
	}
}

// A failed Add makes the breaker judge its own counts at once: with the
// store failing every operation (not known down), the rule still opens it.
func TestFleetFailedAddJudgesLocally(t *testing.T) {
	b, r, _ := riggedBreaker(t, breaker.Config{ConsecutiveFailures: 3})
	r.failAdd.Store(1 << 20)
	for range 3 {
		call(b, verdict.Transient)
		b.Flush()
	}
	if diff := cmp.Diff(breaker.Open, b.State()); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

// A notice with a huge opening count does not step the open schedule
// for ever under the lock, and a notice of an unknown state, or with
// negative numbers, is never taken: the breaker keeps working.
func TestFleetHostileNotices(t *testing.T) {
	b, r, _ := riggedBreaker(t, breaker.Config{OpenFor: schedule.Exponential{Base: time.Second, FactorPct: 200, Cap: time.Minute}})
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.send(breaker.SharedState{Gen: 1, State: breaker.Open, Openings: 1e15, Remaining: time.Second, Delay: time.Second})
		r.send(breaker.SharedState{Gen: 2, State: breaker.Closed})
		r.send(breaker.SharedState{Gen: 3, State: 255})
		r.send(breaker.SharedState{Gen: 4, State: breaker.Open, Openings: -1, Remaining: time.Second, Delay: time.Second})
		r.send(breaker.SharedState{Gen: 5, State: breaker.Open, Openings: 1, Remaining: -time.Second, Delay: -time.Second})
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a notice with a huge opening count hung the breaker")
	}
	if diff := cmp.Diff(breaker.Closed, b.State()); diff != "" {
		t.Fatalf("(-want +got)\n%s", diff)
	}
	if err := call(b, verdict.Success); err != nil {
		t.Errorf("a call after hostile notices: %v", err)
	}
}

// An instance half-open on its own with probes out, that then hears of
// the fleet's half-open spell, keeps its probes as that spell's: it
// never has more than HalfOpenProbes out at once.
func TestFleetProbeLimitKeptAcrossNotices(t *testing.T) {
	b, r, clock := riggedBreaker(t, breaker.Config{HalfOpenProbes: 2, OpenFor: schedule.Spaced{Every: time.Second}})
	r.SetDown(true)
	for range 5 {
		call(b, verdict.Transient)
	}
	b.Flush()
	if b.State() != breaker.Open {
		t.Fatalf("breaker %v, want open", b.State())
	}
	clock.Advance(time.Second)
	var out []*breaker.Permit
	for range 4 {
		if p, err := b.Allow(); err == nil {
			out = append(out, &p)
		}
	}
	r.send(breaker.SharedState{Gen: 7, State: breaker.HalfOpen, Openings: 1, Remaining: time.Second, Delay: time.Second})
	for range 4 {
		if p, err := b.Allow(); err == nil {
			out = append(out, &p)
		}
	}
	if len(out) != 2 {
		t.Errorf("%d probes out at once, want HalfOpenProbes = 2", len(out))
	}
	for i := range out {
		b.Record(out[i], verdict.Success)
	}
	if diff := cmp.Diff(breaker.Closed, b.State()); diff != "" {
		t.Errorf("after both probes passed (-want +got)\n%s", diff)
	}
}
