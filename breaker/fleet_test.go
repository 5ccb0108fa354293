package breaker_test

import (
	"errors"
	"strings"
	"sync"
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

// fleetOf returns n breakers named "api" sharing one MemStore on a
// virtual clock, flushed by hand, and the log of their transitions as
// "instance:from>to".
func fleetOf(t *testing.T, n int, c breaker.Config) ([]*breaker.Breaker, *breakertest.MemStore, *clockcap.VirtualClock, func() []string) {
	t.Helper()
	clock := clockcap.Virtual(epoch)
	store := breakertest.NewMemStore(clock)
	var mu sync.Mutex
	var log []string
	bs := make([]*breaker.Breaker, n)
	for i := range bs {
		c := c
		c.Name, c.Clock, c.Random, c.Shared, c.SharedFlush = "api", clock, randcap.Seeded(uint64(i)), store, -1
		c.OnStateChange = func(_ string, from, to breaker.State) {
			mu.Lock()
			log = append(log, string(rune('a'+i))+":"+from.String()+">"+to.String())
			mu.Unlock()
		}
		b, err := breaker.New(c)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		bs[i] = b
	}
	take := func() []string {
		mu.Lock()
		defer mu.Unlock()
		l := log
		log = nil
		return l
	}
	return bs, store, clock, take
}

func flushAll(bs []*breaker.Breaker) {
	for _, b := range bs {
		b.Flush()
	}
}

func states(bs []*breaker.Breaker) []breaker.State {
	s := make([]breaker.State, len(bs))
	for i, b := range bs {
		s[i] = b.State()
	}
	return s
}

func all(n int, s breaker.State) []breaker.State {
	r := make([]breaker.State, n)
	for i := range r {
		r[i] = s
	}
	return r
}

// Five instances that each see one failure open together, as one
// breaker that saw five in a row: the streak is the fleet's. Every
// instance reports the transition to its own hook.
func TestFleetSharesTheStreak(t *testing.T) {
	bs, _, _, take := fleetOf(t, 5, breaker.Config{})
	for _, b := range bs[:4] {
		call(b, verdict.Transient)
		b.Flush()
	}
	if diff := cmp.Diff(all(5, breaker.Closed), states(bs)); diff != "" {
		t.Fatalf("after 4 failures (-want +got):\n%s", diff)
	}
	call(bs[4], verdict.Transient)
	bs[4].Flush()
	if diff := cmp.Diff(all(5, breaker.Open), states(bs)); diff != "" {
		t.Fatalf("after 5 failures (-want +got):\n%s", diff)
	}
	want := []string{"e:closed>open", "a:closed>open", "b:closed>open", "c:closed>open", "d:closed>open"}
	got := take()
	if diff := cmp.Diff(want, got, cmpSorted); diff != "" {
		t.Errorf("transitions (-want +got):\n%s", diff)
	}
}

var cmpSorted = cmp.Transformer("sort", func(s []string) []string {
	r := append([]string(nil), s...)
	for i := range r {
		for j := i + 1; j < len(r); j++ {
			if r[j] < r[i] {
				r[i], r[j] = r[j], r[i]
			}
		}
	}
	return r
})

// A success on one instance breaks the fleet's streak.
func TestFleetSuccessBreaksTheStreak(t *testing.T) {
	bs, _, _, _ := fleetOf(t, 3, breaker.Config{ConsecutiveFailures: 3})
	call(bs[0], verdict.Transient)
	call(bs[1], verdict.Transient)
	flushAll(bs)
	call(bs[2], verdict.Success)
	bs[2].Flush()
	call(bs[0], verdict.Transient)
	flushAll(bs)
	if diff := cmp.Diff(all(3, breaker.Closed), states(bs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// The failure-rate rule judges the fleet's window.
func TestFleetSharesTheWindow(t *testing.T) {
	bs, _, clock, _ := fleetOf(t, 4, breaker.Config{ConsecutiveFailures: -1, MinCalls: 8})
	for i, b := range bs {
		clock.Advance(time.Millisecond)
		call(b, verdict.Success)
		if i%2 == 0 {
			call(b, verdict.Failure)
		} else {
			call(b, verdict.Success)
		}
		b.Flush()
	}
	// 8 calls, 2 failed: 25%.
	if diff := cmp.Diff(all(4, breaker.Closed), states(bs)); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	for _, b := range bs[:2] {
		call(b, verdict.Failure)
		call(b, verdict.Failure)
		b.Flush()
	}
	// 12 calls, 6 failed: 50%.
	if diff := cmp.Diff(all(4, breaker.Open), states(bs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Exactly HalfOpenProbes probes go out across the fleet per half-open
// spell, and their outcomes, recorded on different instances, decide
// together.
func TestFleetProbes(t *testing.T) {
	for _, probes := range []int{1, 3} {
		bs, _, clock, take := fleetOf(t, 5, breaker.Config{ConsecutiveFailures: 1, HalfOpenProbes: probes})
		call(bs[0], verdict.Transient)
		bs[0].Flush()
		take()
		for spell, outcome := range []verdict.Verdict{verdict.Failure, verdict.Success} {
			clock.Advance(time.Minute)
			var permits []*breaker.Permit
			var who []int
			for range 3 {
				for i, b := range bs {
					if p, err := b.Allow(); err == nil {
						permits = append(permits, &p)
						who = append(who, i)
					}
				}
			}
			if len(permits) != probes {
				t.Fatalf("%d probes, spell %d: %d permits across the fleet", probes, spell, len(permits))
			}
			for k, p := range permits {
				bs[who[k]].Record(p, outcome)
			}
			want := breaker.Open
			if outcome == verdict.Success {
				want = breaker.Closed
			}
			if diff := cmp.Diff(all(5, want), states(bs)); diff != "" {
				t.Errorf("%d probes, spell %d (-want +got):\n%s", probes, spell, diff)
			}
		}
	}
}

// The opening count is the fleet's: an instance that did not send the
// failed probe still waits the second delay of OpenFor when the fleet
// opens again.
func TestFleetSharesTheOpenSchedule(t *testing.T) {
	c := breaker.Config{ConsecutiveFailures: 1, OpenFor: schedule.Exponential{Base: time.Second, FactorPct: 200, Cap: time.Minute}}
	bs, _, clock, _ := fleetOf(t, 2, c)
	call(bs[0], verdict.Transient)
	bs[0].Flush()
	clock.Advance(time.Second)
	if err := call(bs[0], verdict.Failure); err != nil {
		t.Fatal(err)
	}
	var oe *breaker.OpenError
	if err := call(bs[1], verdict.Success); !errors.As(err, &oe) {
		t.Fatalf("second instance: %v, want an *OpenError", err)
	}
	if diff := cmp.Diff(2*time.Second, oe.For); diff != "" {
		t.Errorf("open for (-want +got):\n%s", diff)
	}
}

// While the store is down each instance judges its own counts; when it
// is back, an instance that opened meanwhile wins over the closed fleet.
func TestFleetStoreDown(t *testing.T) {
	bs, store, _, take := fleetOf(t, 3, breaker.Config{})
	store.SetDown(true)
	for range 5 {
		call(bs[0], verdict.Transient)
	}
	flushAll(bs)
	want := []breaker.State{breaker.Open, breaker.Closed, breaker.Closed}
	if diff := cmp.Diff(want, states(bs)); diff != "" {
		t.Fatalf("store down (-want +got):\n%s", diff)
	}
	take()
	store.SetDown(false)
	flushAll(bs)
	if diff := cmp.Diff(all(3, breaker.Open), states(bs)); diff != "" {
		t.Errorf("store back (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"b:closed>open", "c:closed>open"}, take(), cmpSorted); diff != "" {
		t.Errorf("transitions (-want +got):\n%s", diff)
	}
}

// Operators act on the whole fleet.
func TestFleetOperator(t *testing.T) {
	bs, _, _, _ := fleetOf(t, 3, breaker.Config{})
	bs[1].ForceOpen()
	if diff := cmp.Diff(all(3, breaker.ForcedOpen), states(bs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	bs[2].Reset()
	if diff := cmp.Diff(all(3, breaker.Closed), states(bs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestFleetConfigErrors(t *testing.T) {
	store := breakertest.NewMemStore(nil)
	if _, err := breaker.New(breaker.Config{Shared: store, CountWindow: 10}); err == nil || !strings.Contains(err.Error(), "CountWindow") {
		t.Errorf("CountWindow with a store: %v", err)
	}
}

// Two registries, as in two instances, share each target's breaker
// through one store: failures seen by the first open the target in both,
// and other targets stay closed. Close stops every flusher (TestMain
// checks for leaks).
func TestFleetRegistry(t *testing.T) {
	clock := clockcap.Virtual(epoch)
	store := breakertest.NewMemStore(clock)
	c := breaker.Config{Clock: clock, Random: randcap.Seeded(1), Shared: store, SharedFlush: -1, ConsecutiveFailures: 3}
	var regs [2]*breaker.Registry
	for i := range regs {
		r, err := breaker.NewRegistry(c, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := r.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		regs[i] = r
	}
	a0, a1 := regs[0].Get("https://a:443"), regs[1].Get("https://a:443")
	b1 := regs[1].Get("https://b:443")
	for range 3 {
		p, err := a0.Allow()
		if err != nil {
			t.Fatal(err)
		}
		a0.Record(&p, verdict.Failure)
	}
	for _, b := range []*breaker.Breaker{a0, a1, b1} {
		b.Flush()
	}
	got := []breaker.State{a0.State(), a1.State(), b1.State()}
	if diff := cmp.Diff([]breaker.State{breaker.Open, breaker.Open, breaker.Closed}, got); diff != "" {
		t.Errorf("states of a in both registries and b (-want +got):\n%s", diff)
	}
	if _, err := a1.Allow(); !errors.Is(err, breaker.ErrOpen) {
		t.Errorf("the second registry's breaker of a admitted a call: %v", err)
	}
}

// A breaker with a store keeps the closed path free of allocations, and
// its flusher stops at Close (TestMain checks for leaks).
func TestFleetClosedPathAllocs(t *testing.T) {
	b, err := breaker.New(breaker.Config{Shared: breakertest.NewMemStore(nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	allocs := testing.AllocsPerRun(1000, func() {
		p, _ := b.Allow()
		b.Record(&p, verdict.Success)
	})
	if allocs != 0 {
		t.Errorf("closed path: %v allocs per call, want 0", allocs)
	}
	if err := b.Close(); err != nil {
		t.Error(err)
	}
}

// The background flusher sends failures: the fleet opens without Flush
// being called by hand.
func TestFleetBackgroundFlush(t *testing.T) {
	store := breakertest.NewMemStore(nil)
	opened := make(chan struct{}, 2)
	var bs []*breaker.Breaker
	for range 2 {
		b, err := breaker.New(breaker.Config{Name: "api", Shared: store, ConsecutiveFailures: 2, OnStateChange: func(_ string, _, to breaker.State) {
			if to == breaker.Open {
				opened <- struct{}{}
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		bs = append(bs, b)
	}
	call(bs[0], verdict.Transient)
	// The first failure reaches the store before the second is sent.
	bs[0].Flush()
	call(bs[1], verdict.Transient)
	for range 2 {
		<-opened
	}

	if diff := cmp.Diff(all(2, breaker.Open), states(bs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// A probe whose outcome counts nothing gives its fleet-wide slot back.
func TestFleetProbeSlotGivenBack(t *testing.T) {
	bs, _, clock, _ := fleetOf(t, 2, breaker.Config{ConsecutiveFailures: 1})
	call(bs[0], verdict.Transient)
	bs[0].Flush()
	clock.Advance(time.Minute)
	p, err := bs[0].Allow()
	if err != nil {
		t.Fatal(err)
	}
	bs[0].Record(&p, verdict.Neutral)
	if err := call(bs[1], verdict.Success); err != nil {
		t.Fatalf("second instance after the first probe counted nothing: %v", err)
	}
	if diff := cmp.Diff(all(2, breaker.Closed), states(bs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
