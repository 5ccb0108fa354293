package interp_test

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/internal/sat"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
	"pgregory.net/rapid"
)

// saved is a saved run written field by field, as a doctored state would
// be: the decision count, the stopped flag and each node's k, start, a, b.
type saved struct {
	n     int64
	done  bool
	nodes [][4]int64
}

// encode returns st in the encoding of MarshalBinary for a run of s.
func (st saved) encode(t *testing.T, s schedule.Schedule) []byte {
	t.Helper()
	r := interp.Start(s, 1)
	fresh, err := r.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	b := append([]byte(nil), fresh[:17]...) // version, fingerprint, seed
	b = binary.AppendVarint(b, st.n)
	b = append(b, 0)
	if st.done {
		b[len(b)-1] = 1
	}
	b = binary.AppendUvarint(b, uint64(len(st.nodes)))
	for _, nd := range st.nodes {
		for _, v := range nd {
			b = binary.AppendVarint(b, v)
		}
	}
	return b
}

// resume starts a run of s and restores st into it.
func resume(t *testing.T, s schedule.Schedule, st saved) (interp.Run, error) {
	t.Helper()
	r := interp.Start(s, 1)
	return r, r.UnmarshalBinary(st.encode(t, s))
}

var (
	backoffTimes5 = schedule.Intersect{A: schedule.Backoff(100*ms, 30*sec), B: schedule.Times{N: 5}}
	upToForever   = schedule.UpTo{Inner: schedule.Forever{}, Budget: time.Minute}
)

// TestUnmarshalRefusesDoctoredState checks that a state stepping could not
// have produced is refused with an error that names the field. Each of
// these was accepted before, and the first ones made the run never stop.
func TestUnmarshalRefusesDoctoredState(t *testing.T) {
	const maxI = math.MaxInt64
	exp := schedule.Exponential{Base: sec, FactorPct: 200, Cap: time.Minute}
	for _, c := range []struct {
		name string
		s    schedule.Schedule
		st   saved
		want string
	}{{
		"times k beyond N", schedule.Times{N: 5},
		saved{n: 1, nodes: [][4]int64{{maxI, 0, 0, 0}}},
		"interp: state: node 0 (Times): k 9223372036854775807 exceeds N 5",
	}, {
		"inline backoff&times k beyond N", backoffTimes5,
		saved{n: 2, nodes: [][4]int64{{2, 0, 0, 0}, {2, 0, 0, 0}, {2, 0, 200e6, 0}, {maxI, 0, 0, 0}}},
		"interp: state: node 3 (Times): k 9223372036854775807 exceeds N 5",
	}, {
		"decisions near MaxInt64", schedule.Forever{},
		saved{n: maxI, nodes: [][4]int64{{maxI, 0, 0, 0}}},
		"interp: state: decisions 9223372036854775807 exceed 4611686018427387904",
	}, {
		"decisions beyond the attempts Bounds allows", schedule.UpTo{Inner: schedule.Spaced{Every: 10 * sec}, Budget: 35 * sec},
		saved{n: 4, nodes: [][4]int64{{4, 0, 0, 0}, {4, 0, 3, 0}}},
		"interp: state: decisions 4, stopped false: the schedule allows 4 attempts",
	}, {
		"upto k beyond the run's decisions", upToForever,
		saved{n: 3, nodes: [][4]int64{{maxI, 0, 0, 0}, {3, 0, 0, 0}}},
		"interp: state: node 0 (UpTo): k 9223372036854775807, yet 3 decisions reached it",
	}, {
		"spaced slot beyond the largest time", schedule.Spaced{Every: sec},
		saved{n: 2, nodes: [][4]int64{{2, 0, maxI, 0}}},
		"interp: state: node 0 (Spaced): slot 9223372036854775807, b 0 after 2 decisions from start 0",
	}, {
		"spaced slot at the first decision", schedule.Spaced{Every: sec},
		saved{n: 1, nodes: [][4]int64{{1, 0, 5, 0}}},
		"interp: state: node 0 (Spaced): slot 5, b 0 after 1 decisions from start 0",
	}, {
		"negative start", schedule.Spaced{Every: sec},
		saved{n: 1, nodes: [][4]int64{{1, -1, 0, 0}}},
		"interp: state: node 0 start -1 is negative",
	}, {
		"child k apart from its parent's", schedule.Capped{Inner: exp, Max: sec},
		saved{n: 2, nodes: [][4]int64{{2, 0, 0, 0}, {1, 0, int64(sec), 0}}},
		"interp: state: node 1 (Exponential): k 1, yet 2 decisions reached it",
	}, {
		"exponential delay its counter does not give", exp,
		saved{n: 3, nodes: [][4]int64{{3, 0, int64(time.Minute), 0}}},
		"interp: state: node 0 (Exponential): delay 60000000000, b 0 at decision 3; want 4000000000, 0",
	}, {
		"fibonacci delays its counter does not give", schedule.Fibonacci{Base: sec},
		saved{n: 3, nodes: [][4]int64{{3, 0, 1, int64(time.Hour)}}},
		"interp: state: node 0 (Fibonacci): delays 1, 3600000000000 at decision 3; want 1000000000, 2000000000",
	}, {
		"decorrelated delay above its cap", schedule.Decorrelated{Base: sec, Cap: time.Minute},
		saved{n: 4, nodes: [][4]int64{{4, 0, int64(time.Hour), 0}}},
		"interp: state: node 0 (Decorrelated): previous delay 3600000000000, b 0; want a delay in [1000000000, 60000000000], 0",
	}, {
		"decorrelated delay above its draws at the first decision", schedule.Decorrelated{Base: sec, Cap: time.Minute},
		saved{n: 1, nodes: [][4]int64{{1, 0, 4 * int64(sec), 0}}},
		"interp: state: node 0 (Decorrelated): previous delay 4000000000, b 0; want a delay in [1000000000, 3000000000], 0",
	}, {
		"child started apart from its parent", schedule.Intersect{A: schedule.Spaced{Every: sec}, B: schedule.Times{N: 9}},
		saved{n: 1, nodes: [][4]int64{{1, 0, 0, 0}, {1, 1 << 62, 0, 0}, {1, 0, 0, 0}}},
		"interp: state: node 1 (Spaced): start 4611686018427387904, yet it started with its parent at 0",
	}, {
		"then started before its parent", schedule.AndThen{First: schedule.Times{N: 1}, Then: schedule.Spaced{Every: sec}},
		saved{n: 1, nodes: [][4]int64{{1, 5, 1, 0}, {1, 5, 0, 0}, {1, 4, 0, 0}}},
		"interp: state: node 2 (Spaced): start 4 before its parent's 5",
	}, {
		"andthen phase 1 while first goes on", schedule.AndThen{First: schedule.Times{N: 3}, Then: schedule.Forever{}},
		saved{n: 2, nodes: [][4]int64{{2, 0, 1, 0}, {2, 0, 0, 0}, {1, 0, 0, 0}}},
		"interp: state: node 1 (Times): went on, yet its parent (node 0) is in phase 1 (Then)",
	}, {
		"andthen phase 0 once first stopped", schedule.AndThen{First: schedule.Times{N: 2}, Then: schedule.Forever{}},
		saved{n: 2, nodes: [][4]int64{{2, 0, 0, 0}, {2, 0, 0, 0}, {0, 0, 0, 0}}},
		"interp: state: node 1 (Times): stopped, yet its parent (node 0) is in phase 0 (First)",
	}, {
		"andthen phase out of range", schedule.AndThen{First: schedule.Times{N: 2}, Then: schedule.Forever{}},
		saved{n: 1, nodes: [][4]int64{{1, 0, 7, 0}, {1, 0, 0, 0}, {0, 0, 0, 0}}},
		"interp: state: node 0 (AndThen): phase 7, b 0 after 1 decisions",
	}, {
		"union records a stop its child cannot make", schedule.Union{A: schedule.Forever{}, B: schedule.Times{N: 9}},
		saved{n: 2, nodes: [][4]int64{{2, 0, 1, 0}, {2, 0, 0, 0}, {2, 0, 0, 0}}},
		"interp: state: node 1 (Forever): its parent (node 0) recorded a stop it cannot have made",
	}, {
		"union misses a child's stop", schedule.Union{A: schedule.Forever{}, B: schedule.Times{N: 2}},
		saved{n: 2, nodes: [][4]int64{{2, 0, 0, 0}, {2, 0, 0, 0}, {2, 0, 0, 0}}},
		"interp: state: node 2 (Times): stopped, yet its parent (node 0) did not record it",
	}, {
		"not stopped after the last decision said stop", schedule.Union{A: schedule.Times{N: 2}, B: upToForever},
		saved{n: 2, nodes: [][4]int64{{2, 0, 3, 0}, {2, 0, 0, 0}, {2, 0, 0, 0}, {2, 0, 0, 0}}},
		"interp: state: not stopped, yet the schedule's last decision was stop",
	}, {
		"stopped although the last decision went on", schedule.Times{N: 3},
		saved{n: 2, done: true, nodes: [][4]int64{{2, 0, 0, 0}}},
		"interp: state: stopped, yet the schedule's last decision went on",
	}, {
		"stopped before any decision", schedule.Forever{},
		saved{done: true, nodes: [][4]int64{{0, 0, 0, 0}}},
		"interp: state: stopped before any decision",
	}, {
		"state on a node not yet reached", schedule.AndThen{First: schedule.Times{N: 3}, Then: schedule.Spaced{Every: sec}},
		saved{n: 1, nodes: [][4]int64{{1, 0, 0, 0}, {1, 0, 0, 0}, {0, 0, 9, 0}}},
		"interp: state: node 2 (Spaced): no decision, yet start 0, a 9, b 0",
	}} {
		t.Run(c.name, func(t *testing.T) {
			r, err := resume(t, c.s, c.st)
			if err == nil {
				d, ok := r.Next(0, 0)
				t.Fatalf("%v: accepted %+v; its next decision: %v, %v", c.s, c.st, d, ok)
			}
			if !errors.Is(err, interp.ErrInvalidState) {
				t.Errorf("err = %v; want one wrapping ErrInvalidState", err)
			}
			if diff := cmp.Diff(c.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestResumeLateStartCannotPutOffTheEnd checks what the state cannot
// refuse: a start later than the times the resumed run is given. A Spaced
// slot then comes within one period and an UpTo's budget counts from the
// earlier time. Before, Spaced(1s) asked for a 146-year wait and
// UpTo(Forever, 1m) never stopped.
func TestResumeLateStartCannotPutOffTheEnd(t *testing.T) {
	late := int64(1) << 62 // 146 years
	t.Run("spaced", func(t *testing.T) {
		for _, nd := range [][4]int64{{2, late, 0, 0}, {2, 0, late / int64(sec), 0}} {
			r, err := resume(t, schedule.Spaced{Every: sec}, saved{n: 2, nodes: [][4]int64{nd}})
			if err != nil {
				t.Fatal(err)
			}
			if d, ok := r.Next(5*sec, 5*sec+300*ms); !ok || d != 700*ms {
				t.Errorf("state %v: Next = %v, %v; want 700ms, true", nd, d, ok)
			}
		}
	})
	t.Run("upto", func(t *testing.T) {
		r, err := resume(t, upToForever, saved{n: 2, nodes: [][4]int64{{2, late, 0, 0}, {2, late, 0, 0}}})
		if err != nil {
			t.Fatal(err)
		}
		// Attempts of a second each, from 10s into the run: the budget
		// of a minute runs out at 70s, so the attempt that ends at 71s
		// is the last.
		var now time.Duration
		for now = 10 * sec; now < time.Hour; now += sec {
			if _, ok := r.Next(now, now+sec); !ok {
				break
			}
		}
		if want := 70 * sec; now != want {
			t.Errorf("stopped at the attempt from %v; want %v", now, want)
		}
	})
}

// TestResumeStopsAtBoundsAttempts checks a state whose counters agree but
// that claims its decisions were made sooner than the schedule allows: a
// Spaced that never left its first slot after three decisions. The state
// does not keep the clock, so it is accepted, but the resumed run stops
// at the four attempts Bounds allows, and its state saves and restores.
func TestResumeStopsAtBoundsAttempts(t *testing.T) {
	s := schedule.UpTo{Inner: schedule.Spaced{Every: 10 * sec}, Budget: 35 * sec}
	r, err := resume(t, s, saved{n: 3, nodes: [][4]int64{{3, 0, 0, 0}, {3, 0, 0, 0}}})
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := r.Next(sec, sec); ok {
		t.Fatalf("fourth decision: %v, true; want a stop", d)
	}
	data, _ := r.MarshalBinary()
	back := interp.Start(s, 0)
	if err := back.UnmarshalBinary(data); err != nil || !back.Stopped() {
		t.Errorf("restoring the stopped run: %v, stopped %v; want nil, true", err, back.Stopped())
	}
}

// TestResumedDecisionsStayPositive checks that a run resumed with the most
// decisions a state may hold counts on without overflowing, and that its
// state saves and restores again. Before, n = MaxInt64 was accepted, then
// counted negative, and the saved state was refused as truncated.
func TestResumedDecisionsStayPositive(t *testing.T) {
	r, err := resume(t, schedule.Forever{}, saved{n: interp.MaxDecisions, nodes: [][4]int64{{interp.MaxDecisions, 0, 0, 0}}})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		r.Next(0, 0)
	}
	if got, want := r.Decisions(), int64(interp.MaxDecisions+3); got != want {
		t.Errorf("Decisions = %d; want %d", got, want)
	}
	if _, err := resume(t, schedule.Forever{}, saved{n: interp.MaxDecisions + 1, nodes: [][4]int64{{interp.MaxDecisions + 1, 0, 0, 0}}}); !errors.Is(err, interp.ErrInvalidState) {
		t.Errorf("MaxDecisions+1: err = %v; want ErrInvalidState", err)
	}
}

// TestUnmarshalAcceptsReachableEdges checks states at the edges of what
// stepping produces: a Times at its bound once the run stopped, a Union
// whose children stopped at different decisions, an AndThen in its second
// phase with a later start.
func TestUnmarshalAcceptsReachableEdges(t *testing.T) {
	for _, c := range []struct {
		name string
		s    schedule.Schedule
		st   saved
	}{
		{"times stopped", schedule.Times{N: 5}, saved{n: 5, done: true, nodes: [][4]int64{{5, 0, 0, 0}}}},
		{"inline backoff&times stopped", backoffTimes5, saved{n: 5, done: true, nodes: [][4]int64{{5, 0, 0, 0}, {5, 0, 0, 0}, {5, 0, 1600e6, 0}, {5, 0, 0, 0}}}},
		{"union children stopped apart", schedule.Union{A: schedule.Times{N: 2}, B: schedule.Times{N: 4}}, saved{n: 4, done: true, nodes: [][4]int64{{4, 0, 3, 0}, {2, 0, 0, 0}, {4, 0, 0, 0}}}},
		{"andthen then later", schedule.AndThen{First: schedule.Times{N: 2}, Then: schedule.Spaced{Every: sec}}, saved{n: 4, nodes: [][4]int64{{4, 0, 1, 0}, {2, 0, 0, 0}, {3, 7, 2, 0}}}},
		{"upto stopped on its budget", upToForever, saved{n: 7, done: true, nodes: [][4]int64{{7, 3, 0, 0}, {7, 3, 0, 0}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := resume(t, c.s, c.st); err != nil {
				t.Errorf("%v: %v", c.s, err)
			}
		})
	}
}

// TestPropSteppedStateRoundTrips checks that every state real stepping
// leaves is accepted: saved after a decision of a run of any schedule (each
// of the first 8, then every 8th: restoring runs schedule.Bounds),
// with attempts of any length and waits that overrun their delay (a late
// wake-up), it restores into a fresh run, saves to the same bytes, and the
// restored run makes the same decisions as the original.
func TestPropSteppedStateRoundTrips(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := interp.GenSchedule().Draw(t, "s")
		durs := interp.GenDurations(16).Draw(t, "durs")
		late := interp.GenDurations(16).Draw(t, "late")
		r := interp.Start(s, rapid.Uint64().Draw(t, "seed"))
		var clock time.Duration
		back := interp.Start(s, 0)
		for i := 0; i < 60; i++ {
			if i < 8 || i%8 == 0 {
				data, err := r.MarshalBinary()
				if err != nil {
					t.Fatal(err)
				}
				back = interp.Start(s, 0)
				if err := back.UnmarshalBinary(data); err != nil {
					t.Fatalf("%v after %d decisions: %v", s, i, err)
				}
				again, _ := back.MarshalBinary()
				if diff := cmp.Diff(data, again); diff != "" {
					t.Fatalf("%v after %d decisions: saved again (-first +second):\n%s", s, i, diff)
				}
			}
			start, end := clock, sat.AddDur(clock, durs[i%len(durs)])
			d, ok := r.Next(start, end)
			d2, ok2 := back.Next(start, end)
			if d != d2 || ok != ok2 {
				t.Fatalf("%v decision %d: %v, %v; restored run: %v, %v", s, i+1, d, ok, d2, ok2)
			}
			if !ok && r.Stopped() {
				// Save once more: the state of a stopped run is accepted too.
				data, _ := r.MarshalBinary()
				if err := back.UnmarshalBinary(data); err != nil {
					t.Fatalf("%v stopped after %d decisions: %v", s, i+1, err)
				}
				return
			}
			clock = sat.AddDur(sat.AddDur(end, d), late[i%len(late)])
		}
	})
}

// A Spaced slot and an UpTo budget near the largest Duration are measured
// from the node's start, so that no sum of a start and a period saturates
// into a wait that is too short or a budget that never ends: after
// Times(2), UpTo(Spaced(max), max-1ns) stops at once, as schedule.Bounds
// says, when the attempts take 1ms (it ran 300 attempts at a saturated
// time, found by cmd/schedcheck's TestPropAgreeWithBounds).
func TestSaturatedSlotAndBudget(t *testing.T) {
	s := schedule.AndThen{First: schedule.Times{N: 2}, Then: schedule.UpTo{Inner: schedule.Spaced{Every: schedule.MaxDuration}, Budget: schedule.MaxDuration - 1}}
	r := interp.Start(s, 0)
	var start, now time.Duration
	attempts := 1
	for ; attempts < 10; attempts++ {
		now = start + time.Millisecond
		d, ok := r.Next(start, now)
		if !ok {
			break
		}
		start = min(now+d, schedule.MaxDuration)
	}
	if want := schedule.Bounds(s).MaxAttempts; attempts != want {
		t.Errorf("%v with 1ms attempts: %d attempts; want %d, as Bounds says", s, attempts, want)
	}
}
