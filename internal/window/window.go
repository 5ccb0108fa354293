// Package window counts events in a sliding time window cheaply enough for
// a request path: the circuit breaker's failure and slow-call rates and the
// retry budgets' request counts all live in one.
//
// A Window is a ring of Buckets buckets, each Counters counters wide,
// covering the newest Buckets bucket widths of time. The trick is that
// recording an event does not read a clock: Add bumps a pending total with
// one atomic add, and only when enough events are pending (the batch) does
// the owner read its clock and FlushLocked them into the ring. A flush
// spreads the pending events evenly over the time since the previous
// flush, so steady traffic is counted in the right buckets; the batch
// adapts so that, at any rate, flushes come about four times per bucket
// width, or every maxBatch events (the owner's choice, see Init) if that
// is sooner. A busy target therefore pays one clock read per maxBatch
// events, and a quiet one, whose clock reads cost nothing in aggregate,
// is counted almost exactly.
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
	width    int64 // bucket width, ns
	batch    atomic.Int32
	maxBatch int32 // the largest batch; 0 in exact mode, which flushes after every event

	pending [Counters]atomic.Int64 // events not yet flushed
	sums    [Counters]atomic.Int64 // sums over the ring, readable without the lock

	// Guarded by the owner's lock.
	last    int64 // time of the last flush; its bucket, last / width, is the newest
	buckets [Buckets][Counters]int64
	life    [Counters]int64 // everything ever flushed, for statistics
}

// takePending returns and clears the events pending on counter c.
func (w *Window) takePending(c int) int64 {
	if w.pending[c].Load() == 0 {
		return 0
	}
	return w.pending[c].Swap(0)
}

// Init prepares w to cover Buckets buckets of width nanoseconds each
// (width must be positive), starting at time 0, with at most maxBatch
// events pending before Add asks for a flush (from 1 to 2³¹−1).
// With exact set, every Add asks for a flush, which makes the counts
// exact at the price of a clock read per event; tests use it to compare
// against a model.
func (w *Window) Init(width int64, maxBatch int32, exact bool) {
	w.width, w.maxBatch = width, max(maxBatch, 1)
	if exact {
		w.maxBatch = 0
	}
	w.batch.Store(1)
}

// Exact reports whether w was made in exact mode.
func (w *Window) Exact() bool { return w.maxBatch == 0 }

// Width returns the bucket width in nanoseconds.
func (w *Window) Width() int64 { return w.width }

// Add records n events on counter c without reading a clock and reports
// whether the owner should now flush: take its lock (TryLock is enough:
// whoever holds the lock may flush instead), read its clock and call
// FlushLocked.
func (w *Window) Add(c int, n int64) (flush bool) {
	return w.pending[c].Add(n) >= int64(w.batch.Load())
}

// Sum returns counter c over the window, pending events included.
func (w *Window) Sum(c int) int64 { return w.sums[c].Load() + w.pending[c].Load() }

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
	w.buckets[w.head()%Buckets][c] += n
	w.sums[c].Add(n)
	w.life[c] += n
}

// BucketLocked returns the counters of the i-th newest bucket (0 is the
// current one), as of the last flush; zero for i outside the window.
func (w *Window) BucketLocked(i int) [Counters]int64 {
	if i < 0 || i >= Buckets || int64(i) > w.head() {
		return [Counters]int64{}
	}
	return w.buckets[(w.head()-int64(i))%Buckets]
}

// LifetimeLocked returns every event ever recorded on counter c, including
// those that have left the window and those still pending.
func (w *Window) LifetimeLocked(c int) int64 { return w.life[c] + w.pending[c].Load() }

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
	w.last = now
}

// head returns the number of the newest bucket.
func (w *Window) head() int64 { return w.last / w.width }

// rotate makes the bucket of time now the newest, clearing the buckets it
// skips over and the oldest ones it pushes out. FlushLocked then sets last
// to now, which makes that bucket the head.
func (w *Window) rotate(now int64) {
	nb, head := now/w.width, w.head()
	if nb <= head {
		return
	}
	from := max(head+1, nb-Buckets+1)
	for b := from; b <= nb; b++ {
		row := &w.buckets[b%Buckets]
		for c := range row {
			w.sums[c].Add(-row[c])
			row[c] = 0
		}
	}
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
	span, head := t1-t0, t1/w.width
	if span == 0 || w.Exact() {
		row := &w.buckets[head%Buckets]
		for c := range p {
			row[c] += p[c]
			w.sums[c].Add(p[c])
		}
		return
	}
	first := max(t0+1, (head-Buckets+1)*w.width) // the first instant still in the window
	var given [Counters]int64
	for c := range p {
		given[c] = mulDiv(p[c], first-1-t0, span)
	}
	for b := first / w.width; b <= head; b++ {
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
	if w.Exact() {
		return
	}
	b := float64(w.maxBatch)
	if span > 0 {
		b = min(b, float64(events)*float64(max(w.width/4, 1))/float64(span))
	}
	if n := max(int32(b), 1); n != w.batch.Load() {
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
