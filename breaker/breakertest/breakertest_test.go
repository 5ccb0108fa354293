package breakertest_test

import (
	"errors"
	"testing"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/breaker/breakertest"
	"github.com/recur-go/recur/clockcap"
)

// The Link contract, as a breaker relies on it: one publication per
// generation, notices to the other links only, at most n claims per
// half-open generation, counts by state, and ErrStoreDown while down.
func TestMemStoreLinks(t *testing.T) {
	clock := clockcap.Virtual(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	m := breakertest.NewMemStore(clock)
	var heard [2][]breaker.SharedState
	join := func(i int) breaker.Link {
		l, err := m.Join("api", 10*time.Second, func(s breaker.SharedState) { heard[i] = append(heard[i], s) })
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	a, b := join(0), join(1)

	st, c, err := a.Add(0, breaker.Batch{Calls: 3, Failures: 3, Streak: 3})
	if err != nil || st.Gen != 0 || c != (breaker.Counts{Calls: 3, Failures: 3, ConsecutiveFailures: 3}) {
		t.Fatalf("Add = %+v, %+v, %v", st, c, err)
	}
	if _, c, _ = b.Add(0, breaker.Batch{Calls: 2, Failures: 1}); c.ConsecutiveFailures != 0 || c.Calls != 5 {
		t.Errorf("a mixed batch: counts %+v, want the streak its own (0) and 5 calls", c)
	}

	half := breaker.SharedState{State: breaker.HalfOpen, Openings: 1, Remaining: 5 * time.Second, Delay: 5 * time.Second}
	st, ok, err := a.Publish(0, half)
	if err != nil || !ok || st.Gen != 1 || st.State != breaker.HalfOpen {
		t.Fatalf("Publish = %+v, %v, %v", st, ok, err)
	}
	if len(heard[0]) != 0 || len(heard[1]) != 1 || heard[1][0] != st {
		t.Errorf("notices: %v, want one to the other link only", heard)
	}
	if _, ok, _ := b.Publish(0, half); ok {
		t.Error("a second publication over generation 0 was made")
	}

	for i, want := range []bool{true, true, false} {
		if got, err := b.Claim(1, 2); got != want || err != nil {
			t.Errorf("claim %d = %v, %v, want %v", i, got, err, want)
		}
	}
	if err := a.Release(1); err != nil {
		t.Fatal(err)
	}
	if got, _ := a.Claim(1, 2); !got {
		t.Error("a released slot was not free again")
	}
	if _, c, _ := a.Add(1, breaker.Batch{Calls: 1, Failures: 1}); c != (breaker.Counts{Calls: 1, Failures: 1}) {
		t.Errorf("a probe's outcome: counts %+v, want the probes' tally", c)
	}

	clock.Advance(2 * time.Second)
	if st, _, _ := a.Add(1, breaker.Batch{}); st.Remaining != 3*time.Second {
		t.Errorf("Remaining = %v after 2s, want 3s", st.Remaining)
	}

	m.SetDown(true)
	if _, _, err := a.Add(1, breaker.Batch{}); !errors.Is(err, breaker.ErrStoreDown) {
		t.Errorf("down: Add error %v, want ErrStoreDown", err)
	}
	m.SetDown(false)

	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := a.Publish(1, breaker.SharedState{State: breaker.Closed}); !ok || len(heard[1]) != 1 {
		t.Errorf("a closed link heard a notice: %v", heard[1])
	}
}
