package otelrecur

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCapped: one entry per key up to the cap, made once even when
// goroutines ask for the same new keys at once; Overflow past it.
func TestCapped(t *testing.T) {
	var made atomic.Int64
	c := newCapped(100, func(k string) string { made.Add(1); return "v" + k })
	var wg sync.WaitGroup
	got := make([][]string, 4)
	for w := range got {
		wg.Go(func() {
			for i := range 300 {
				got[w] = append(got[w], c.get(strconv.Itoa(i)))
			}
		})
	}
	wg.Wait()
	want := make([]string, 300)
	for i := range want {
		want[i] = "v" + strconv.Itoa(i)
		if i >= 100 {
			want[i] = "v" + Overflow
		}
	}
	for w := range got {
		if diff := cmp.Diff(want, got[w]); diff != "" {
			t.Errorf("goroutine %d (-want +got):\n%s", w, diff)
		}
	}
	if made.Load() != 101 {
		t.Errorf("%d entries made; want 100 and the overflow", made.Load())
	}
	if v := c.get(Overflow); v != "v"+Overflow {
		t.Errorf("get(Overflow) = %q", v)
	}
}

// TestCappedLarge: a cap far above the default holds every key up to it,
// each with its own entry, and overflows past it. (The snapshot is copied
// only once the misses have paid for it, so filling it is linear.)
func TestCappedLarge(t *testing.T) {
	const n = 200000
	c := newCapped(n, func(k string) string { return k })
	for i := range n {
		c.get(strconv.Itoa(i))
	}
	for i := range n {
		if k := strconv.Itoa(i); c.get(k) != k {
			t.Fatalf("get(%q) = %q", k, c.get(k))
		}
	}
	if c.full.Load() {
		t.Error("full before the cap")
	}
	if v := c.get("one more"); v != Overflow {
		t.Errorf("past the cap: %q; want the overflow entry", v)
	}
}
