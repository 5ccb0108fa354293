package interp

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestPropStartIn: a run started in a Buffer decides as a run started by
// Start, whether its nodes fit the buffer or not, and a Buffer used again
// for another run starts it afresh.
func TestPropStartIn(t *testing.T) {
	var buf Buffer // shared by every case: each run starts from a used buffer
	rapid.Check(t, func(t *rapid.T) {
		s := GenSchedule().Draw(t, "schedule")
		seed := rapid.Uint64().Draw(t, "seed")
		a, b := Start(s, seed), StartIn(s, seed, &buf)
		if n := len(b.nodes); n <= BufferNodes && n > 0 && &b.nodes[0] != &buf.nodes[0] {
			t.Fatalf("%d nodes not kept in the buffer", n)
		}
		var want, got []time.Duration
		var now time.Duration
		for range 20 {
			d, ok := a.Next(now, now)
			e, ok2 := b.Next(now, now)
			if ok != ok2 {
				t.Fatalf("Start says %v, StartIn %v", ok, ok2)
			}
			if !ok {
				break
			}
			want, got = append(want, d), append(got, e)
			now += d + time.Millisecond
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("delays (-Start +StartIn):\n%s", diff)
		}
	})
}

// TestStartInAllocs: a run kept beside its Buffer, as a runner keeps
// them in one struct, starts and decides with no allocation of its own.
func TestStartInAllocs(t *testing.T) {
	s := GenSchedule().Example(0)
	h := &struct {
		r   Run
		buf Buffer
	}{}
	allocs := testing.AllocsPerRun(100, func() {
		h.r = StartIn(s, 1, &h.buf)
		h.r.Next(0, 0)
	})
	if count(s) <= BufferNodes && allocs != 0 {
		t.Errorf("StartIn of %d nodes: %v allocs, want 0", count(s), allocs)
	}
}
