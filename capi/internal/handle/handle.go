// Package handle is the handle table of recur's C ABI: C holds opaque
// 64-bit handles instead of pointers, and a stale one is detected instead
// of reaching freed or reused memory.
package handle

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// A handle is what C holds instead of a pointer: the index of a slot in
// the table and the slot's generation when the handle was issued,
//
//	handle = generation<<indexBits | index
//
// Closing a handle clears the slot; the next handle
// issued from the slot gets the next generation, so an old handle no
// longer matches and is reported stale instead of reaching the new
// object. The generation starts at 1, so 0 is never a handle. Go's
// runtime/cgo.Handle is not used because Value panics on a deleted
// handle and carries no generation: a reused number would reach another
// object.
const (
	indexBits = 22
	// Max is how many handles may be live at once (RECUR_MAX_HANDLES).
	Max      = 1 << indexBits
	maxSlots = Max
	genBits  = 64 - indexBits // generations wrap after 2⁴² reuses of a slot
	genMask  = 1<<genBits - 1

	chunkBits = 12
	chunkSize = 1 << chunkBits
	maxChunks = maxSlots / chunkSize
)

// Kind is the type of object a handle names, from 1; a handle looked up
// as another kind is not found.
type Kind uint8

// slot is one place in the table. word is the live handle's generation
// and kind, gen<<8 | kind, or 0 while the slot is free; obj is its object.
// Issuing stores obj, then word; closing clears word, then obj; a reader
// loads word, obj and word again, and takes obj only if word did not
// change and matches its handle, so it never sees another handle's
// object. Nothing is allocated per handle.
type slot struct {
	word atomic.Uint64
	obj  unsafe.Pointer // accessed atomically
	gen  uint64         // the last generation issued from the slot; under Table.mu
}

// Table is a handle table; its zero value is empty and ready. Lookups
// take no lock: three atomic loads. Issuing and closing take the mutex,
// for the free list.
type Table struct {
	mu     sync.Mutex
	free   []uint32 // closed slots, reused last in first out
	used   uint32   // slots ever used: the next fresh index
	live   int
	chunks [maxChunks]atomic.Pointer[[chunkSize]slot]
}

// Put stores obj, which must not be nil, and returns its new handle, or
// false when maxSlots handles are live.
func (t *Table) Put(k Kind, obj unsafe.Pointer) (uint64, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var i uint32
	switch {
	case len(t.free) > 0:
		i = t.free[len(t.free)-1]
		t.free = t.free[:len(t.free)-1]
	case t.used < maxSlots:
		i = t.used
		t.used++
		if c := i >> chunkBits; t.chunks[c].Load() == nil {
			t.chunks[c].Store(new([chunkSize]slot))
		}
	default:
		return 0, false
	}
	s := &t.chunks[i>>chunkBits].Load()[i&(chunkSize-1)]
	s.gen = (s.gen + 1) & genMask
	if s.gen == 0 {
		s.gen = 1
	}
	atomic.StorePointer(&s.obj, obj)
	s.word.Store(s.gen<<8 | uint64(k))
	t.live++
	return s.gen<<indexBits | uint64(i), true
}

// lookup returns the slot that h names, its word and its object, if h is
// live and of kind k (any kind for 0).
func (t *Table) lookup(h uint64, k Kind) (*slot, uint64, unsafe.Pointer) {
	i, gen := uint32(h&(maxSlots-1)), h>>indexBits
	if gen == 0 {
		return nil, 0, nil
	}
	c := t.chunks[i>>chunkBits].Load()
	if c == nil {
		return nil, 0, nil
	}
	s := &c[i&(chunkSize-1)]
	w := s.word.Load()
	if w>>8 != gen || (k != 0 && Kind(w) != k) {
		return nil, 0, nil
	}
	obj := atomic.LoadPointer(&s.obj)
	if s.word.Load() != w {
		return nil, 0, nil
	}
	return s, w, obj
}

// Get returns the object that h names, or nil if h is not a live handle
// of kind k.
func (t *Table) Get(h uint64, k Kind) unsafe.Pointer {
	_, _, obj := t.lookup(h, k)
	return obj
}

// Del closes h, of any kind, and returns its object and kind; nil if h
// was not live. Of two threads closing one handle at once, one gets the
// object.
func (t *Table) Del(h uint64) (unsafe.Pointer, Kind) {
	s, w, obj := t.lookup(h, 0)
	if s == nil || !s.word.CompareAndSwap(w, 0) {
		return nil, 0
	}
	atomic.StorePointer(&s.obj, nil)
	t.mu.Lock()
	t.free = append(t.free, uint32(h&(maxSlots-1)))
	t.live--
	t.mu.Unlock()
	return obj, Kind(w)
}

// Count returns how many handles are live.
func (t *Table) Count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.live
}
