// Package stripe spreads a counter that many goroutines write at once over
// several cache lines, so that goroutines running on different cores
// rarely write the same line and do not pass it back and forth on every
// call.
//
// A goroutine's stripe is a salted hash of where its stack is: goroutine
// stacks are separate allocations of at least 2 KiB, so two goroutines
// differ in the address bits above that, and a goroutine keeps its stripe
// while its stack stays put and the salt does not change. Two goroutines
// may still hash to one stripe, about one pair in Count. So now and then
// (every 64th event of a count of Counters; every flush of a window) the
// writer of an event notes who it is in the stripe; when that changes, two
// goroutines share the stripe, and a new salt deals every goroutine
// again, as Java's LongAdder re-hashes a thread that collides. The check
// costs the other events nothing but a test of the count. Any stripe is
// correct; the choice only spreads the writes, and a reader sums every
// stripe.
//
// Stripes are LineSize bytes apart, so each lies within one cache line as
// long as the first does: the tests of the packages that hold them check
// with Apart, on values as allocated.
//
// Its users are budget and internal/window (and the tests of breaker). It
// imports nothing of the module.
package stripe

import (
	"sync/atomic"
	"unsafe"
)

const (
	// Count is the number of stripes: a power of two, enough that the
	// goroutines of a few cores rarely share one.
	Count = 1 << bits
	bits  = 3
	// LineSize is the cache line size the stripes are padded to.
	LineSize = 64
	// minStack is the smallest goroutine stack, in address bits.
	minStack = 11
)

// phi is 2⁶⁴ divided by the golden ratio: Fibonacci hashing's multiplier.
const phi = 0x9E3779B97F4A7C15

// sample is how often, in events, a count of Counters checks who writes
// its stripe.
const sample = 64

// Salt deals goroutines to stripes and deals them again when two turn
// out to share one. Its zero value is ready to use. It is read on every
// event and written rarely: keep it in a cache line that is mostly read.
type Salt struct{ v atomic.Uint64 }

// Pick returns the calling goroutine's stripe, from 0 to Count-1, and its
// identity: a sampled event's writer notes it in the stripe, and a
// change of writer means that two goroutines share the stripe.
func (s *Salt) Pick() (i int, id uint64) {
	var here byte
	id = uint64(uintptr(unsafe.Pointer(&here))) >> minStack
	return int((id ^ s.v.Load()) * phi >> (64 - bits)), id // index, inlined by hand to keep Pick's callers inlinable
}

// index returns the stripe of the goroutine with identity id under salt.
func index(id, salt uint64) int { return int((id ^ salt) * phi >> (64 - bits)) }

// Stir deals every goroutine again under a new salt. Call it when two
// goroutines turn out to write one stripe: two that ran on different
// cores most likely part.
func (s *Salt) Stir() { s.v.Add(phi) }

// Deals returns how many times Stir has been called.
func (s *Salt) Deals() uint64 { return s.v.Load() * phiInverse }

// phiInverse is phi's inverse modulo 2⁶⁴.
const phiInverse = 0xF1DE83E19937733D

// Counters holds Width counts that many goroutines add to at once, in
// one set of stripes, so that a goroutine that adds to several touches
// one cache line. Its zero value holds zeros.
type Counters struct {
	salt  Salt
	_     [LineSize - 8]byte
	cells [Count]struct {
		n     [Width]atomic.Uint64
		owner atomic.Uint64
		_     [LineSize - Width*8 - 8]byte
	}
}

// Width is the number of counts in Counters.
const Width = 4

// Add adds one to count k, from 0 to Width-1.
func (c *Counters) Add(k int) {
	// Salt.Pick and Salt.Stir by hand: through them, Add would cost too
	// much to inline. A stripe's first check finds no owner and deals
	// again too, once, for the same reason.
	var here byte
	id := uint64(uintptr(unsafe.Pointer(&here))) >> minStack
	cell := &c.cells[(id^c.salt.v.Load())*phi>>(64-bits)]
	if cell.n[k].Add(1)%sample == 0 && cell.owner.Swap(id) != id {
		c.salt.v.Add(phi)
	}
}

// Load returns count k.
func (c *Counters) Load(k int) uint64 {
	var n uint64
	for i := range c.cells {
		n += c.cells[i].n[k].Load()
	}
	return n
}

// At returns the address of c's first stripe, for Apart.
func (c *Counters) At() unsafe.Pointer { return unsafe.Pointer(&c.cells[0]) }

// Apart reports whether stripes that start at p and every LineSize bytes
// after it, each live bytes long, each lie within one cache line, so that
// no two share one, and whether the first is past the first line of the
// allocation that starts at obj: a stripe in that line (which Go shares
// with a header for some objects) ran at half speed when two cores wrote
// it. Tests use it on values as allocated, since a field's offset alone
// does not say where its lines fall.
func Apart(obj, p unsafe.Pointer, live uintptr) bool {
	return uintptr(p)%LineSize+live <= LineSize && uintptr(p)/LineSize > uintptr(obj)/LineSize
}
