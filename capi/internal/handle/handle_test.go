package handle

import (
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

const (
	kindA Kind = iota + 1
	kindB
)

// obj returns a distinct object pointer for the table tests.
func obj(v int) unsafe.Pointer { return unsafe.Pointer(&v) }

func TestHandles(t *testing.T) {
	var tab Table
	pa, pb, pc := obj(1), obj(2), obj(3)
	a, _ := tab.Put(kindA, pa)
	b, _ := tab.Put(kindB, pb)
	if tab.Get(a, kindA) != pa || tab.Get(b, kindB) != pb {
		t.Fatal("lookup")
	}
	if tab.Get(a, kindB) != nil || tab.Get(0, kindA) != nil || tab.Get(a^1<<indexBits, kindA) != nil {
		t.Error("a handle of another kind, 0 or another generation was found")
	}
	if o, k := tab.Del(a); o != pa || k != kindA {
		t.Error("delete")
	}
	if o, _ := tab.Del(a); o != nil || tab.Get(a, kindA) != nil {
		t.Error("a deleted handle")
	}
	c, _ := tab.Put(kindA, pc) // reuses a's slot
	if c&(maxSlots-1) != a&(maxSlots-1) || c == a {
		t.Errorf("handle %x after %x: the slot was not reused with a new generation", c, a)
	}
	if tab.Get(a, kindA) != nil || tab.Get(c, kindA) != pc {
		t.Error("a stale handle reached its slot's new object")
	}
	if n := tab.Count(); n != 2 {
		t.Errorf("count %d", n)
	}
	// A handle in a chunk never made.
	if tab.Get(uint64(1)<<indexBits|(maxSlots-1), kindA) != nil {
		t.Error("found a handle in an unmade chunk")
	}
}

func TestHandlesFull(t *testing.T) {
	var tab Table
	tab.used = maxSlots
	if _, ok := tab.Put(kindA, obj(1)); ok {
		t.Error("put past maxSlots")
	}
	tab.free = append(tab.free, 5)
	tab.chunks[0].Store(new([chunkSize]slot))
	if h, ok := tab.Put(kindA, obj(1)); !ok || h&(maxSlots-1) != 5 {
		t.Errorf("put into a freed slot of a full table: %x %v", h, ok)
	}
}

func TestHandlesGenerationWraps(t *testing.T) {
	var tab Table
	h, _ := tab.Put(kindA, obj(1))
	tab.Del(h)
	tab.chunks[0].Load()[0].gen = genMask - 1 // the next is the last generation
	h2, _ := tab.Put(kindA, obj(2))
	if h2>>indexBits != genMask {
		t.Fatalf("generation %x", h2>>indexBits)
	}
	tab.Del(h2)
	p3 := obj(3)
	h3, _ := tab.Put(kindA, p3)
	if h3>>indexBits != 1 || tab.Get(h3, kindA) != p3 {
		t.Errorf("after the last generation: %x", h3)
	}
}

// TestHandlesConcurrent puts, gets and deletes from many goroutines,
// while others look up handles as they are closed and reused: run with
// -race. A lookup finds its own object or nothing.
func TestHandlesConcurrent(t *testing.T) {
	var tab Table
	var wg sync.WaitGroup
	var recent [8]atomic.Uint64
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				v := g*10000 + i
				h, ok := tab.Put(kindB, unsafe.Pointer(&v))
				if !ok {
					t.Error("full")
					return
				}
				recent[g].Store(h)
				if p := tab.Get(h, kindB); p == nil || *(*int)(p) != v {
					t.Error("lost a handle")
					return
				}
				if o, _ := tab.Del(h); o == nil || tab.Get(h, kindB) != nil {
					t.Error("delete")
					return
				}
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for range 20000 {
				for g := range recent {
					h := recent[g].Load()
					if p := tab.Get(h, kindB); p != nil && *(*int)(p)/10000 != g {
						t.Error("a lookup found another handle's object")
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if n := tab.Count(); n != 0 {
		t.Errorf("%d handles left", n)
	}
}
