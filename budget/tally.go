package budget

import (
	"sync/atomic"

	"github.com/recur-go/recur/internal/window"
)

// tally counts a window's events in front of it, striped like counter:
// each goroutine adds to a cell of its own, so cores do not pass the
// window's pending counters back and forth on every call. The events move
// into the window when the owner flushes it.
type tally struct {
	cells [stripes]struct {
		n [2]atomic.Int64 // window counters 0 and 1
		_ [48]byte
	}
}

// add counts one event on window counter c (0 or 1) and reports whether
// the caller's cell now holds a batch of w's: the owner should then take
// its lock (TryLock is enough), move the tally in and flush. With several
// cells in use a flush comes after a batch in one of them, so up to a
// batch per cell may be pending.
func (t *tally) add(c int, w *window.Window) bool {
	cell := &t.cells[stripe()]
	return cell.n[c].Add(1)+cell.n[1-c].Load() >= w.Batch()
}

// moveLocked moves the events counted into w's pending counters, touching
// only the cells that hold some. Call it with the owner's lock held, just
// before w.FlushLocked.
func (t *tally) moveLocked(w *window.Window) {
	for i := range t.cells {
		for c := range 2 {
			if n := &t.cells[i].n[c]; n.Load() != 0 {
				w.Add(c, n.Swap(0))
			}
		}
	}
}

// sum returns the events counted on window counter c and not yet moved.
func (t *tally) sum(c int) int64 {
	var n int64
	for i := range t.cells {
		n += t.cells[i].n[c].Load()
	}
	return n
}
