package budget

import (
	"sync/atomic"
	"unsafe"
)

// stripes is the number of cells of a counter: a power of two, enough that
// the goroutines of a few cores rarely share one.
const stripes = 8

// counter is a statistics counter that many goroutines add to at once.
// Each adds to a cell of its own most of the time, chosen by its stack
// address, so that cores do not pass one cache line back and forth on
// every call; Load sums the cells. A goroutine whose stack moves may
// change cells, which only costs a cache miss.
type counter struct {
	cells [stripes]struct {
		n atomic.Uint64
		_ [56]byte
	}
}

// Add adds one.
func (c *counter) Add() { c.cells[stripe()].n.Add(1) }

// Load returns the count.
func (c *counter) Load() uint64 {
	var n uint64
	for i := range c.cells {
		n += c.cells[i].n.Load()
	}
	return n
}

// stripe returns the calling goroutine's cell: its stack address, above
// the size of a small stack frame, hashed.
func stripe() int {
	var here byte
	p := uint64(uintptr(unsafe.Pointer(&here))) >> 12
	return int(p * 0x9e3779b97f4a7c15 >> 61) // top 3 bits: stripes = 8
}
