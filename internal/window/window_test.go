package window

import (
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// model counts events exactly: it remembers each event's time.
type model struct {
	width  int64
	events []event
	now    int64
}

type event struct {
	t, c, n int64
}

func (m *model) sum(c int) int64 {
	head := m.now / m.width
	var s int64
	for _, e := range m.events {
		if e.c == int64(c) && e.t/m.width > head-Buckets {
			s += e.n
		}
	}
	return s
}

func (m *model) lifetime(c int) int64 {
	var s int64
	for _, e := range m.events {
		if e.c == int64(c) {
			s += e.n
		}
	}
	return s
}

// TestPropExactMatchesModel: in exact mode every event is flushed at its
// own time, so the window's sums are the model's, whatever the steps.
// testBatch is the largest batch of the windows under test.
const testBatch = 64

func TestPropExactMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		width := rapid.Int64Range(1, 1000).Draw(t, "width")
		var w Window
		w.Init(width, testBatch, true)
		m := &model{width: width}
		for range rapid.IntRange(1, 200).Draw(t, "steps") {
			switch rapid.IntRange(0, 3).Draw(t, "op") {
			case 0:
				m.now += rapid.Int64Range(0, width*(Buckets+2)).Draw(t, "advance")
			case 1:
				c := rapid.IntRange(0, Counters-1).Draw(t, "c")
				n := rapid.Int64Range(1, 5).Draw(t, "n")
				if w.Add(c, n) {
					w.FlushLocked(m.now)
				}
				m.events = append(m.events, event{m.now, int64(c), n})
			case 2:
				c := rapid.IntRange(0, Counters-1).Draw(t, "c")
				w.FlushLocked(m.now)
				w.AddLocked(c, 1)
				m.events = append(m.events, event{m.now, int64(c), 1})
			case 3:
				w.FlushLocked(m.now)
			}
			// Sums are as of the last flush: the owner flushes before it
			// looks (now and then, so that events also reach a flush
			// some time after the previous one).
			if rapid.IntRange(0, 3).Draw(t, "look") != 0 {
				continue
			}
			w.FlushLocked(m.now)
			for c := range Counters {
				if got, want := w.Sum(c), m.sum(c); got != want {
					t.Fatalf("at %d counter %d: Sum = %d; want %d", m.now, c, got, want)
				}
				if got, want := w.LifetimeLocked(c), m.lifetime(c); got != want {
					t.Fatalf("counter %d: Lifetime = %d; want %d", c, got, want)
				}
			}
		}
	})
}

// TestPropBatchedIsClose: with batching, the window is off from the exact
// count by at most the events of the one flush interval that straddles
// the window's start plus those still pending: fewer than 2·testBatch.
func TestPropBatchedIsClose(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		width := rapid.Int64Range(4, 1000).Draw(t, "width")
		var w Window
		w.Init(width, testBatch, false)
		m := &model{width: width}
		for range rapid.IntRange(1, 2000).Draw(t, "events") {
			m.now += rapid.Int64Range(0, width/2).Draw(t, "gap")
			if w.Add(0, 1) {
				w.FlushLocked(m.now)
			}
			m.events = append(m.events, event{m.now, 0, 1})
			// The owner looks at the window when it flushes for its own
			// reasons (a failure, a retry): do that now and then.
			if rapid.IntRange(0, 50).Draw(t, "look") == 0 {
				w.FlushLocked(m.now)
				got, want := w.Sum(0), m.sum(0)
				if d := got - want; d <= -2*testBatch || d >= 2*testBatch {
					t.Fatalf("at %d: Sum = %d; exact %d", m.now, got, want)
				}
			}
		}
		if got, want := w.LifetimeLocked(0), m.lifetime(0); got != want {
			t.Fatalf("Lifetime = %d; want %d", got, want)
		}
	})
}

func TestSpreadSteadyTraffic(t *testing.T) {
	// 100 events per bucket for 30 buckets, flushed only when Add says so:
	// the window holds buckets 21 to 30, which saw 901 events (the last
	// one, at 30000, opens bucket 30), give or take the batch straddling
	// the window's start.
	var w Window
	w.Init(1000, testBatch, false)
	var now int64
	for range 3000 {
		now += 10
		if w.Add(0, 1) {
			w.FlushLocked(now)
		}
	}
	w.FlushLocked(now)
	if got := w.Sum(0); got < 901-testBatch || got > 901+testBatch {
		t.Errorf("Sum = %d; want 901 ± %d", got, testBatch)
	}
	if got := w.batch.Load(); got != 25 {
		t.Errorf("batch = %d; want 25 (a flush every quarter bucket at 100 events a bucket)", got)
	}
}

func TestSpreadShares(t *testing.T) {
	tests := []struct {
		name   string
		t0, t1 int64
		n      int64
		want   [Buckets]int64 // by bucket number mod Buckets
	}{
		{"one event lands at the end", 0, 35, 1, [Buckets]int64{3: 1}},
		// The instants 1 … 40: bucket 0 holds 9 of them, buckets 1 to 3
		// ten each, bucket 4 one (40 itself).
		{"even spread", 0, 40, 4, [Buckets]int64{1: 1, 2: 1, 3: 1, 4: 1}},
		{"zero span", 15, 15, 3, [Buckets]int64{1: 3}},
		// A flush exactly on a bucket boundary: the event is at 40, in
		// bucket 4, the newest, not in bucket 3.
		{"one event on a boundary lands in the newest bucket", 0, 40, 1, [Buckets]int64{4: 1}},
		{"one event on a later boundary", 35, 50, 1, [Buckets]int64{5: 1}},
		// The instants 1 … 200: buckets 11 to 20 are in the window (91
		// instants); the first 109 instants are out of it.
		{"older part dropped", 0, 200, 20, [Buckets]int64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
	}
	for _, tt := range tests {
		var w Window
		w.Init(10, testBatch, false)
		w.FlushLocked(tt.t0)
		w.pending[0].Add(tt.n)
		w.FlushLocked(tt.t1)
		var got [Buckets]int64
		for i := range got {
			got[i] = w.buckets[i][0]
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
		if got := w.LifetimeLocked(0); got != tt.n {
			t.Errorf("%s: Lifetime = %d; want %d", tt.name, got, tt.n)
		}
	}
}

// A success recorded exactly on a bucket boundary stays in the window for
// the full Window: it leaves when its own bucket does, 10 widths later,
// not one width early.
func TestEventOnBoundaryStaysTheWholeWindow(t *testing.T) {
	var w Window
	w.Init(10, testBatch, false)
	w.FlushLocked(5)
	w.Add(0, 1)
	w.FlushLocked(10) // the event, at 10: bucket 1
	for _, tt := range []struct{ at, want int64 }{{10, 1}, {99, 1}, {100, 1}, {109, 1}, {110, 0}} {
		w.FlushLocked(tt.at)
		if got := w.Sum(0); got != tt.want {
			t.Errorf("at %d: Sum = %d; want %d (the window of 100 ns holds the event from 10 to 109)", tt.at, got, tt.want)
		}
	}
}

func TestBucketLocked(t *testing.T) {
	var w Window
	w.Init(10, testBatch, true)
	for _, at := range []int64{5, 15, 15, 35} {
		w.FlushLocked(at)
		w.AddLocked(0, 1)
	}
	var got []int64
	for i := -1; i <= Buckets; i++ {
		got = append(got, w.BucketLocked(i)[0])
	}
	// Buckets 3, 2, 1, 0 and then none: the window is young.
	if diff := cmp.Diff([]int64{0, 1, 0, 2, 1, 0, 0, 0, 0, 0, 0, 0}, got); diff != "" {
		t.Errorf("BucketLocked(-1 … %d) (-want +got):\n%s", Buckets, diff)
	}
}

func TestResetKeepsLifetime(t *testing.T) {
	var w Window
	w.Init(10, testBatch, false)
	w.Add(0, 5)
	w.FlushLocked(3)
	w.AddLocked(1, 2)
	w.Add(0, 4)
	w.ResetLocked(50)
	got := []int64{w.Sum(0), w.Sum(1), w.LifetimeLocked(0), w.LifetimeLocked(1)}
	if diff := cmp.Diff([]int64{0, 0, 9, 2}, got); diff != "" {
		t.Errorf("after Reset: Sum 0, Sum 1, Lifetime 0, Lifetime 1 (-want +got):\n%s", diff)
	}
	// A flush at a time before the reset counts as the reset's time.
	w.Add(0, 1)
	w.FlushLocked(20)
	if got := w.Sum(0); got != 1 {
		t.Errorf("Sum after a late flush = %d; want 1", got)
	}
}

func TestConcurrentAddsAreAllCounted(t *testing.T) {
	var w Window
	w.Init(1_000_000, testBatch, false)
	var mu sync.Mutex
	var clock int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10_000 {
				if w.Add(0, 1) && mu.TryLock() {
					clock++
					w.FlushLocked(clock)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if got := w.LifetimeLocked(0); got != 80_000 {
		t.Errorf("Lifetime = %d; want 80000", got)
	}
	if got := w.Sum(0); got != 80_000 {
		t.Errorf("Sum = %d; want 80000 (all within one bucket)", got)
	}
}

func BenchmarkAdd(b *testing.B) {
	var w Window
	w.Init(1e8, testBatch, false)
	var mu sync.Mutex
	var now int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if w.Add(0, 1) && mu.TryLock() {
				now += 1000
				w.FlushLocked(now)
				mu.Unlock()
			}
		}
	})
}

// Add asks for a flush once the events pending reach the batch, and not
// before.
func TestAddAsksAtTheBatch(t *testing.T) {
	var w Window
	w.Init(100, testBatch, false)
	w.batch.Store(2)
	if w.Add(0, 1) {
		t.Fatal("Add of 1 at batch 2 asked for a flush")
	}
	if !w.Add(0, 1) {
		t.Fatal("Add of 2 at batch 2 asked for no flush")
	}
}
