package stripe

import (
	"math/rand/v2"
	"sync"
	"testing"
	"unsafe"
)

// Goroutines whose stacks are 2 KiB apart, the smallest stacks there are,
// get stripes of their own as often as hashing allows: never all the same,
// and two neighbours never share one.
func TestIndexSpreadsAdjacentStacks(t *testing.T) {
	const base = 0xc000_0000
	seen := map[int]bool{}
	for k := range uint64(64) {
		seen[index(base>>minStack+k, 0)] = true
	}
	if len(seen) != Count {
		t.Errorf("64 adjacent 2 KiB stacks use %d of %d stripes", len(seen), Count)
	}
	for a := uint64(base); a < base+1<<20; a += 4096 {
		if index(a>>minStack, 0) == index((a+2048)>>minStack, 0) {
			t.Fatalf("stacks at %#x and %#x share a stripe", a, a+2048)
		}
	}
}

func TestIndexInRange(t *testing.T) {
	var wg sync.WaitGroup
	for range 100 {
		wg.Go(func() {
			var s Salt
			s.v.Store(rand.Uint64())
			if i, _ := s.Pick(); i < 0 || i >= Count {
				t.Errorf("Index() = %d", i)
			}
		})
	}
	wg.Wait()
}

func TestCounters(t *testing.T) {
	var c Counters
	var wg sync.WaitGroup
	for g := range 50 {
		wg.Go(func() {
			for range 1000 {
				c.Add(g % Width)
			}
		})
	}
	wg.Wait()
	for k := range Width {
		want := uint64(1000 * ((50 + Width - 1 - k) / Width)) // goroutines g with g%Width == k
		if got := c.Load(k); got != want {
			t.Errorf("Load(%d) = %d; want %d", k, got, want)
		}
	}
	if s := unsafe.Sizeof(c); s != (Count+1)*LineSize {
		t.Errorf("Counters is %d bytes; want %d, a line for the salt and one a stripe", s, (Count+1)*LineSize)
	}
}

// Pick deals by index: the hand-inlined copy agrees with it.
func TestPickMatchesIndex(t *testing.T) {
	var s Salt
	for range 100 {
		s.Stir()
		i, id := s.Pick()
		if want := index(id, s.v.Load()); i != want {
			t.Fatalf("Pick() = %d; index says %d", i, want)
		}
	}
	if n := s.Deals(); n != 100 {
		t.Errorf("Deals() = %d after 100 stirs", n)
	}
}

// A stripe of Counters that another goroutine wrote last deals again at
// its next check; a lone goroutine soon settles on a stripe, and its
// checks then deal nothing. Add picks stripes as index does.
func TestCountersDealAgainWhenShared(t *testing.T) {
	var c Counters
	for i := range c.cells {
		c.cells[i].owner.Store(1) // no goroutine's identity: stacks are not at address 2 KiB
	}
	for range sample {
		c.Add(2)
	}
	if n := c.salt.Deals(); n == 0 {
		t.Fatal("the stripe's last writer was another goroutine: no new deal")
	}
	for range 100 * sample {
		c.Add(2)
	}
	settled := c.salt.Deals()
	if settled > Count+1 {
		t.Errorf("a lone goroutine dealt %d times; want at most one a stripe", settled)
	}
	for range 100 * sample {
		c.Add(2)
	}
	if n := c.salt.Deals(); n != settled {
		t.Errorf("a lone goroutine settled after %d deals, then dealt %d more", settled, n-settled)
	}
	if got := c.Load(2); got != 201*sample {
		t.Errorf("Load(2) = %d; want %d", got, 201*sample)
	}
	// The lone goroutine's stripe is the one index gives for its owner.
	used := -1
	for i := range c.cells {
		if c.cells[i].n[2].Load()%sample != 0 || c.cells[i].owner.Load() != 1 && c.cells[i].n[2].Load() > 0 {
			if id := c.cells[i].owner.Load(); index(id, c.salt.v.Load()) == i {
				used = i
			}
		}
	}
	if used < 0 {
		t.Error("no stripe that index gives for its owner holds the lone goroutine's counts")
	}
}
