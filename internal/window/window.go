// Package window counts events in a sliding time window cheaply enough for
// a request path: the circuit breaker's failure and slow-call rates and the
// retry budgets' request counts all live in one.
//
// A Window is a ring of Buckets buckets, each Counters counters wide,
// covering the newest Buckets bucket widths of time. The trick is that
// recording an event does not read a clock: Add bumps a pending total with
// one atomic add, and only when enough events are pending (the batch) does
// the owner read its clock and FlushLocked them into the ring. The pending
// totals are striped (package stripe): each goroutine adds to one of
// stripe.Count cache lines, chosen by where its stack is, so that
// goroutines on different cores rarely write the same line; the goroutine
// that asks for a flush notes itself in its stripe, and a flush that finds
// another goroutine there than the last time deals the stripes again. A
// flush spreads the pending events evenly over the time
// since the previous flush, so steady traffic is counted in the right
// buckets; the batch adapts so that, at any rate, flushes come about four
// times per bucket width, or every maxBatch events (the owner's choice,
// see Init) if that is sooner. A busy target therefore pays one clock read
// per maxBatch events, and a quiet one, whose clock reads cost nothing in
// aggregate, is counted almost exactly.
//
// The owner supplies the lock: methods whose names end in Locked must be
// called with it held; Add and Sum need no lock. Times are nanoseconds on
// the owner's clock since an epoch of its choice, never negative.
//
// Its users are breaker and budget. It imports internal/stripe only.
package window

import (
	"math/bits"
	"sync/atomic"
	"unsafe"

	"github.com/recur-go/recur/internal/stripe"
)

const (
	// Buckets is the number of buckets in a window.
	Buckets = 10
	// Counters is the number of counters in a bucket.
	Counters = 3
)

// Window is a sliding window of counters. Its zero value is not usable:
// call Init.
type Window struct {
	// Read on every event, written only when the rate changes: a line
	// apart from what every flush writes. First, so that no stripe shares
	// the line that starts its owner's allocation, where Go may keep a
	// header: a stripe there ran at half speed when two cores wrote.
	width int64 // bucket width, ns
	exact bool  // flush after every event
	batch atomic.Int64
	salt  stripe.Salt // deals goroutines to pending stripes
	_     [stripe.LineSize - 32]byte

	// pending is written on every event; each stripe has its own cache
	// line so that goroutines on different cores do not share one.
	pending [stripe.Count]pending

	sums [Counters]atomic.Int64 // sums over the ring, readable without the lock

	// Guarded by the owner's lock.
	head     int64 // number of the newest bucket: time / width
	last     int64 // time of the last flush
	maxBatch int64 // the largest batch
	buckets  [Buckets][Counters]int64
	life     [Counters]int64      // everything ever flushed, for statistics
	owners   [stripe.Count]uint64 // each stripe's owner as of the last flush
}

type pending struct {
	n     [Counters]atomic.Int64
	owner atomic.Uint64 // the last goroutine to ask for a flush from here
	tally atomic.Uint64 // see Tally
	_     [stripe.LineSize - LiveBytes]byte
}

// LiveBytes is how much of each pending stripe's cache line holds data.
const LiveBytes = Counters*8 + 16

// pendingOf returns the events pending on counter c in every stripe.
func (w *Window) pendingOf(c int) int64 {
	var n int64
	for i := range w.pending {
		n += w.pending[i].n[c].Load()
	}
	return n
}

// checkOwnersLocked deals goroutines to stripes again if a stripe's
// flush was asked for by another goroutine than the last time: two share
// it.
func (w *Window) checkOwnersLocked() {
	stir := false
	for i := range w.pending {
		id := w.pending[i].owner.Load()
		if id != w.owners[i] {
			stir = stir || w.owners[i] != 0
			w.owners[i] = id
		}
	}
	if stir {
		w.salt.Stir()
	}
}

// takePending returns and clears the events pending on counter c.
func (w *Window) takePending(c int) int64 {
	var n int64
	for i := range w.pending {
		if w.pending[i].n[c].Load() != 0 {
			n += w.pending[i].n[c].Swap(0)
		}
	}
	return n
}

// Init prepares w to cover Buckets buckets of width nanoseconds each
// (width must be positive), starting at time 0, with at most maxBatch
// events pending in a stripe before Add asks for a flush (at least 1).
// With exact set, every Add asks for a flush, which makes the counts
// exact at the price of a clock read per event; tests use it to compare
// against a model.
func (w *Window) Init(width, maxBatch int64, exact bool) {
	w.width, w.maxBatch, w.exact = width, max(maxBatch, 1), exact
	w.batch.Store(1)
}

// Width returns the bucket width in nanoseconds.
func (w *Window) Width() int64 { return w.width }

// Add records n events on counter c without reading a clock and reports
// whether the owner should now flush: take its lock (TryLock is enough:
// whoever holds the lock may flush instead), read its clock and call
// FlushLocked. It is small enough to inline (cost 80 of the compiler's
// 80: check with go build -gcflags=-m=2 after a change).
func (w *Window) Add(c int, n int64) (flush bool) {
	i, id := w.salt.Pick()
	p := &w.pending[i]
	if p.n[c].Add(n) < w.batch.Load() {
		return false
	}
	p.owner.Store(id) // FlushLocked checks who asked: see package stripe
	return true
}

// Tally adds one to a count kept beside the window, in its stripes, for
// the owner's statistics: it is in no bucket and asks for no flush.
func (w *Window) Tally() {
	i, _ := w.salt.Pick()
	w.pending[i].tally.Add(1)
}

// Tallied returns the count that Tally keeps.
func (w *Window) Tallied() uint64 {
	var n uint64
	for i := range w.pending {
		n += w.pending[i].tally.Load()
	}
	return n
}

// Sum returns counter c over the window, pending events included.
func (w *Window) Sum(c int) int64 { return w.sums[c].Load() + w.pendingOf(c) }

// Flushed returns counter c over the window as of the last flush. Unlike
// Sum it reads no counter that every event writes, so concurrent readers
// do not contend with writers.
func (w *Window) Flushed(c int) int64 { return w.sums[c].Load() }

// FlushLocked moves the pending events into the ring, spread evenly over
// the time since the previous flush, after dropping the buckets that have
// slid out of the window by time now. A now before the previous flush (two
// goroutines read the clock in one order and locked in the other) counts
// as the previous flush's time.
func (w *Window) FlushLocked(now int64) {
	now = max(now, w.last)
	w.checkOwnersLocked()
	var p [Counters]int64
	var events int64
	for c := range p {
		p[c] = w.takePending(c)
		events += p[c]
	}
	w.rotate(now)
	if events > 0 {
		w.spread(&p, w.last, now)
		w.adapt(events, now-w.last)
	}
	w.last = now
}

// AddLocked records n events on counter c in the newest bucket. Call it
// right after FlushLocked, so that the newest bucket is the current one.
func (w *Window) AddLocked(c int, n int64) {
	w.buckets[w.head%Buckets][c] += n
	w.sums[c].Add(n)
	w.life[c] += n
}

// BucketLocked returns the counters of the i-th newest bucket (0 is the
// current one), as of the last flush; zero for i outside the window.
func (w *Window) BucketLocked(i int) [Counters]int64 {
	if i < 0 || i >= Buckets || int64(i) > w.head {
		return [Counters]int64{}
	}
	return w.buckets[(w.head-int64(i))%Buckets]
}

// LifetimeLocked returns every event ever recorded on counter c, including
// those that have left the window and those still pending.
func (w *Window) LifetimeLocked(c int) int64 { return w.life[c] + w.pendingOf(c) }

// ResetLocked empties the window as of time now: the events counted so
// far, pending ones included, leave the window but stay in the lifetime
// totals.
func (w *Window) ResetLocked(now int64) {
	now = max(now, w.last)
	for c := range Counters {
		w.life[c] += w.takePending(c)
		w.sums[c].Store(0)
	}
	w.buckets = [Buckets][Counters]int64{}
	w.head, w.last = now/w.width, now
}

// rotate makes the bucket of time now the newest, clearing the buckets it
// skips over and the oldest ones it pushes out.
func (w *Window) rotate(now int64) {
	nb := now / w.width
	if nb <= w.head {
		return
	}
	from := max(w.head+1, nb-Buckets+1)
	for b := from; b <= nb; b++ {
		row := &w.buckets[b%Buckets]
		for c := range row {
			w.sums[c].Add(-row[c])
			row[c] = 0
		}
	}
	w.head = nb
}

// spread adds the events p, which happened somewhere in (t0, t1], to the
// buckets that interval overlaps, in proportion to the overlap; the share
// of the part of the interval that is already out of the window is
// dropped. Times are whole nanoseconds, so the interval is the instants
// t0+1 … t1 and bucket b holds the instants b·width … (b+1)·width−1: an
// event at t1 = k·width is in bucket k, never k−1. Rounding is cumulative,
// so the shares add up exactly and a single event lands in the newest
// bucket. In exact mode every event was flushed when it happened, at t1.
func (w *Window) spread(p *[Counters]int64, t0, t1 int64) {
	for c := range p {
		w.life[c] += p[c]
	}
	span := t1 - t0
	if span == 0 || w.exact {
		row := &w.buckets[w.head%Buckets]
		for c := range p {
			row[c] += p[c]
			w.sums[c].Add(p[c])
		}
		return
	}
	first := max(t0+1, (w.head-Buckets+1)*w.width) // the first instant still in the window
	var given [Counters]int64
	for c := range p {
		given[c] = mulDiv(p[c], first-1-t0, span)
	}
	for b := first / w.width; b <= w.head; b++ {
		cum := min(t1, (b+1)*w.width-1) - t0
		row := &w.buckets[b%Buckets]
		for c := range p {
			upto := mulDiv(p[c], cum, span)
			row[c] += upto - given[c]
			w.sums[c].Add(upto - given[c])
			given[c] = upto
		}
	}
}

// adapt sets the batch so that, at the rate just seen (events over span
// nanoseconds), the next flush comes about a quarter of a bucket later.
func (w *Window) adapt(events, span int64) {
	if w.exact {
		return
	}
	b := float64(w.maxBatch)
	if span > 0 {
		b = min(b, float64(events)*float64(max(w.width/4, 1))/float64(span))
	}
	if n := max(int64(b), 1); n != w.batch.Load() {
		w.batch.Store(n)
	}
}

// mulDiv returns a·b/c for non-negative a, b and positive c with b ≤ c,
// without overflow.
func mulDiv(a, b, c int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	q, _ := bits.Div64(hi, lo, uint64(c))
	return int64(q)
}

// PendingAt returns the address of w's first pending stripe, for
// stripe.Apart.
func PendingAt(w *Window) unsafe.Pointer { return unsafe.Pointer(&w.pending[0]) }
