package breaker

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recur-go/recur/internal/window"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/verdict"
)

// maxBatch is the most successes the window holds pending before the
// breaker reads its clock and flushes them: one clock read per 256
// successes on a busy breaker. Failures flush at once, and successes near a
// threshold are counted under the lock, so the batch only delays when the
// window learns that time has passed.
const maxBatch = 256

// The breaker's window counters.
const (
	cCalls    = iota // calls with a counted outcome: Success, Transient, Failure
	cFailures        // of which failed
	cSlow            // of which were slow
)

// Breaker is a circuit breaker. Make one with New; it is safe for
// concurrent use.
type Breaker struct {
	win      window.Window
	word     atomic.Uint64 // state, generation, probes in flight, armed; see state.go
	s        *settings     // shared by the breakers of a Registry
	name     string
	consec   atomic.Int64  // failures in a row while closed
	rejected atomic.Uint64 // calls Allow refused, for Stats
	// deadline is when an Open breaker may half-open, and when a
	// HalfOpen one's probes time out.
	deadline atomic.Int64
	openErr  atomic.Pointer[OpenError]

	mu    sync.Mutex
	ring  *ring    // the count-based window, if CountWindow is set
	ep    *episode // made the first time the breaker leaves Closed
	dups  uint64   // permits recorded twice, for Stats
	fleet *fleet   // the Config.Shared store's side, or nil
}

// episode is what a breaker keeps of its openings and half-open spells.
// A breaker that never opens has none: most of a Registry's targets. The
// breaker's lock guards it.
type episode struct {
	run       interp.Run    // steps OpenFor
	openings  int           // openings in a row since the last close
	start     int64         // time of the first of them
	lastDelay time.Duration // the open duration last used
	probes    probeTally    // the half-open probes' slots and outcomes
	opened    uint64        // openings ever, for Stats
}

// epLocked returns the breaker's episode, making it on first use.
func (b *Breaker) epLocked() *episode {
	if b.ep == nil {
		b.ep = &episode{run: interp.Start(b.s.OpenFor, 0)}
	}
	return b.ep
}

// Permit is the admission Allow gives a call. Pass its address to the same
// breaker's Record with the call's verdict, once: Record marks it
// recorded, so that recording it again counts nothing. It is a small
// value; the zero Permit records nothing.
//
// A Permit must not be copied once Allow has returned it: a copy would be
// recorded as a second call. go vet's copylocks check reports a copy
// (p2 := p, a Permit passed or ranged over by value), at no cost at run
// time; keep it in one variable or field and pass its address.
type Permit struct {
	_ noCopy
	g grant
}

// grant is what a Permit holds; the breaker passes it around by value.
type grant struct {
	w      uint64 // the breaker's word when it admitted the call, probes and armed bit masked
	start  int64  // when, if the breaker times calls
	slot   uint16 // the probe's slot + 1, if half-open
	ticket uint32 // the probe's ticket, if half-open
}

// New returns a closed breaker configured by c, or an error that names the
// bad field of c.
func New(c Config) (*Breaker, error) {
	s, err := resolve(c)
	if err != nil {
		return nil, err
	}
	b := build(&s, s.Name, false)
	if s.Shared != nil {
		if err := b.join(); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// build makes a closed breaker named name.
func build(s *settings, name string, exact bool) *Breaker {
	b := &Breaker{s: s, name: name}
	b.win.Init(int64(s.Window)/window.Buckets, maxBatch, exact)
	if s.CountWindow > 0 {
		b.ring = &ring{slots: make([]uint8, s.CountWindow)}
	}
	b.mu.Lock()
	b.enterLocked(b.now(), Closed)
	b.mu.Unlock()
	return b
}

// Name returns the breaker's name.
func (b *Breaker) Name() string { return b.name }

// State returns the breaker's state. An Open breaker whose open duration
// has passed still says Open: it half-opens when the next call arrives.
func (b *Breaker) State() State { return stateOf(b.word.Load()) }

// Allow asks to make a call. If the breaker lets it through, Allow returns
// a Permit, which the caller must pass to Record once the call's outcome
// is known, whatever it is; otherwise it returns an *OpenError, which
// errors.Is matches to ErrOpen, and the caller must fail the call at once.
//
// A closed breaker admits a call with one atomic load: no lock, no clock
// read (unless SlowCall is set), no allocation. An open one refuses with a
// read of the monotonic clock (with the real clock) and no allocation.
// With Config.Shared the closed and open paths are the same; the call
// that half-opens the breaker publishes the transition, and each would-be
// probe claims a slot fleet-wide: a store round trip each, within the
// store's timeout.
func (b *Breaker) Allow() (Permit, error) {
	for {
		w := b.word.Load()
		switch st := stateOf(w); {
		case st == Closed || st == Disabled || st == MetricsOnly:
			return Permit{g: b.permit(w)}, nil
		case st == ForcedOpen:
			return b.reject()
		case st == HalfOpen && probesOf(w) < b.s.HalfOpenProbes:
			g, ok, again := b.tryProbe(w)
			if ok {
				return Permit{g: g}, nil
			}
			if again {
				continue
			}
		}
		// Open, or HalfOpen with every probe out: refused until the
		// deadline.
		now := b.now()
		if now < b.deadline.Load() {
			return b.reject()
		}
		b.expire(w, now)
	}
}

func (b *Breaker) permit(w uint64) grant {
	g := grant{w: w & sameMask}
	if b.s.SlowCall > 0 {
		g.start = b.now()
	}
	return g
}

// tryProbe admits a probe if the half-open breaker whose word is w has
// a free slot, here and, with a store, across the fleet; again means the
// word changed meanwhile, and the caller should look again.
func (b *Breaker) tryProbe(w uint64) (g grant, ok, again bool) {
	if b.fleet == nil {
		g, ok = b.probe(w)
		return g, ok, !ok
	}
	gen, claimed, goOn := b.claim(w)
	if !goOn {
		return grant{}, false, false
	}
	if g, ok = b.probe(w); !ok && claimed {
		_ = b.fleet.link.Release(gen)
	}
	return g, ok, !ok
}

// probe admits a probe into a free slot of the half-open breaker whose
// word is still w; false means the word changed meanwhile.
func (b *Breaker) probe(w uint64) (grant, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.word.Load() != w || probesOf(w) >= b.s.HalfOpenProbes {
		return grant{}, false
	}
	b.word.Store(w + probeOne)
	g := b.permit(w)
	g.slot, g.ticket = b.ep.probes.take()
	return g, true
}

func (b *Breaker) reject() (Permit, error) {
	b.rejected.Add(1)
	if e := b.openErr.Load(); e != nil {
		return Permit{}, e
	}
	return Permit{}, ErrOpen
}

// Record reports the outcome of a call that Allow let through. Success
// counts for the target; Transient and Failure count against it; Retryable,
// Neutral and unknown verdicts count nothing. A call that took SlowCall or
// longer also counts as slow. An outcome that arrives after the breaker
// has changed state since admitting its call (it opened meanwhile, say)
// counts nothing: it says nothing about the new state. A Disabled breaker
// counts nothing either.
//
// The rules are judged after every counted outcome. Recording a success
// while closed costs an atomic add and no lock, and about once every 256
// calls on a busy breaker a clock read; a failure takes the breaker's
// lock and reads the clock, and so do successes while the window is close
// enough to a threshold that one more success could open it (a success
// that brings the window up to MinCalls, say).
//
// Record marks *p recorded. Recording it again counts nothing: Stats
// counts it in Duplicates and Config.Logger gets a record at Debug. So
// does recording a copy of a half-open probe's Permit whose original was
// recorded, since each probe carries a ticket. A copy of a closed
// breaker's Permit cannot be told from a second permit at run time
// without slowing every call, so copying one is what go vet reports (see
// Permit). A nil p or the zero Permit records nothing.
func (b *Breaker) Record(pp *Permit, v verdict.Verdict) {
	if pp == nil {
		return
	}
	p := pp.g
	pp.g.w = recorded
	w := b.word.Load()
	if w&sameMask != p.w { // never true of the zero or a recorded Permit
		if p.w == recorded {
			b.duplicate()
		}
		return
	}
	counted := v == verdict.Success || v.Failed()
	var now int64
	timed, slow := b.s.SlowCall > 0 && counted, false
	if timed {
		now = b.now()
		slow = time.Duration(now-p.start) >= b.s.SlowCall
	}
	switch st := stateOf(w); {
	case counting(st):
		if !counted {
			return
		}
		if v == verdict.Success && !slow && w&armBit == 0 {
			if b.consec.Load() != 0 {
				b.consec.Store(0)
			}
			if b.win.Add(cCalls, 1) && b.mu.TryLock() {
				t := b.flushLocked(b.now(), b.judgesLocally())
				b.mu.Unlock()
				b.notify(t)
			}
			return
		}
		if !timed {
			now = b.now()
		}
		b.closed(p, v.Failed(), slow, now)
	case st == HalfOpen:
		if counted && !timed {
			now = b.now()
		}
		b.probed(p, v, counted, slow, now)
	}
}

// flushLocked moves the window's pending successes into it at time now,
// judges the rules if judge is set (time has moved, and old successes may
// have left the window) and returns the transition to report.
func (b *Breaker) flushLocked(now int64, judge bool) transition {
	b.win.FlushLocked(now)
	return b.judgeLocked(now, judge, b.consec.Load())
}

// judgeLocked opens a closed breaker at time now, given n failures in a
// row, if judge is set and a rule says so, arms it otherwise, and
// returns the transition to report.
func (b *Breaker) judgeLocked(now int64, judge bool, n int64) transition {
	if judge && stateOf(b.word.Load()) == Closed {
		c := b.counts()
		c.ConsecutiveFailures = int(n)
		if why := b.tripsOn(c); why != "" {
			return b.openLocked(now, Closed, why)
		}
	}
	b.armLocked()
	return transition{}
}

// closed records an outcome on a closed (or metrics-only) breaker that
// the fast path does not take, and opens it if a rule says so.
func (b *Breaker) closed(p grant, failed, slow bool, now int64) {
	b.mu.Lock()
	w := b.word.Load()
	if w&sameMask != p.w {
		b.mu.Unlock()
		return
	}
	b.count(now, failed, slow)
	var n int64
	if failed {
		n = b.consec.Add(1)
	} else {
		b.consec.Store(0)
	}
	t := b.judgeLocked(now, b.judgesLocally(), n)
	b.mu.Unlock()
	b.notify(t)
	if failed {
		b.kickFlush()
	}
}

// count records one call with a counted outcome at time now.
func (b *Breaker) count(now int64, failed, slow bool) {
	b.win.FlushLocked(now)
	b.win.AddLocked(cCalls, 1)
	if failed {
		b.win.AddLocked(cFailures, 1)
	}
	if slow {
		b.win.AddLocked(cSlow, 1)
	}
	if b.ring != nil {
		b.ring.add(failed, slow)
	}
}

// counts returns the window's counts.
func (b *Breaker) counts() Counts {
	c := Counts{Calls: int(b.win.Sum(cCalls)), Failures: int(b.win.Sum(cFailures)), Slow: int(b.win.Sum(cSlow))}
	if b.ring != nil {
		c = b.ring.c
	}
	c.ConsecutiveFailures = int(b.consec.Load())
	return c
}

// tripsOn returns why the counts c should open the breaker, or "".
func (b *Breaker) tripsOn(c Counts) string {
	n := c.ConsecutiveFailures
	if f := b.s.TripWhen; f != nil {
		if f(c) {
			return "trip predicate"
		}
		return ""
	}
	if k := b.s.ConsecutiveFailures; k > 0 && n >= k {
		return "consecutive failures"
	}
	if c.Calls < b.s.MinCalls || c.Calls == 0 {
		return ""
	}
	return b.rates(c)
}

// rates returns which rate rule the counts c break, or "".
func (b *Breaker) rates(c Counts) string {
	if r := b.s.FailureRate; r > 0 && c.Failures*100 >= r*c.Calls {
		return "failure rate"
	}
	if b.s.SlowCall > 0 && c.Slow*100 >= b.s.SlowRate*c.Calls {
		return "slow-call rate"
	}
	return ""
}

// armLocked sets the armed bit when a success must take the locked path:
// always with a count-based window or a trip predicate; otherwise while a
// closed window is so near a rate threshold that one more success (which
// raises the call count, perhaps up to MinCalls) would trip it — now, or
// once its older buckets have slid out, which only time can do: so the
// check runs over the newest bucket, the newest two, and so on.
func (b *Breaker) armLocked() {
	w := b.word.Load()
	st := stateOf(w)
	arm := b.s.locked && counting(st)
	if !arm && st == Closed {
		var sum [window.Counters]int64
		for i := range window.Buckets {
			row := b.win.BucketLocked(i)
			for k := range sum {
				sum[k] += row[k]
			}
			c := Counts{Calls: max(int(sum[cCalls])+1, b.s.MinCalls), Failures: int(sum[cFailures]), Slow: int(sum[cSlow])}
			if arm = b.rates(c) != ""; arm {
				break
			}
		}
	}
	switch {
	case arm && w&armBit == 0:
		b.word.Or(armBit)
	case !arm && w&armBit != 0:
		b.word.And(^uint64(armBit))
	}
}

// probed records a probe's outcome. An outcome that counts nothing frees
// the probe's place; once every probe is counted, the probes' rates
// decide between opening again and closing. With a store, the fleet's
// probes decide: this instance holds only some of them.
func (b *Breaker) probed(p grant, v verdict.Verdict, counted, slow bool, now int64) {
	b.mu.Lock()
	w := b.word.Load()
	if w&sameMask != p.w {
		b.mu.Unlock()
		return
	}
	e, f := b.ep, b.fleet
	if !e.probes.give(p.slot, p.ticket) {
		b.mu.Unlock()
		b.duplicate()
		return
	}
	if !counted {
		b.word.Store(w - probeOne)
		var gen uint64
		if f != nil {
			gen = f.gen
		}
		b.mu.Unlock()
		if f != nil && f.ok.Load() {
			_ = f.link.Release(gen)
		}
		return
	}
	failed := v.Failed()
	b.count(now, failed, slow)
	c := e.probes.record(failed, slow)
	if f != nil && b.s.HalfOpenProbes > 1 && f.ok.Load() {
		gen := f.gen
		b.mu.Unlock()
		batch := Batch{Calls: 1}
		if failed {
			batch.Failures, batch.Streak = 1, 1
		}
		if slow {
			batch.Slow = 1
		}
		cur, fc, err := f.link.Add(gen, batch)
		if down(err) {
			f.ok.Store(false)
		}
		b.mu.Lock()
		if err == nil && cur.Gen == gen {
			c = fc
		} else {
			c = e.probes.counts()
		}
	}
	var t transition
	if b.word.Load()&sameMask == p.w && c.Calls >= b.s.HalfOpenProbes {
		t = b.decideLocked(now, c)
	}
	b.mu.Unlock()
	b.notify(t)
}

// decideLocked closes a half-open breaker whose probes' counts are c, or
// opens it again.
func (b *Breaker) decideLocked(now int64, c Counts) transition {
	if why := b.probesFail(c); why != "" {
		return b.openLocked(now, HalfOpen, why)
	}
	b.enterLocked(now, Closed)
	return transition{from: HalfOpen, to: Closed, word: b.word.Load() & sameMask}
}

// probesFail returns why the recorded probes open the breaker again, or
// "" if they close it.
func (b *Breaker) probesFail(c Counts) string {
	if b.s.FailureRate < 0 && c.Failures > 0 {
		return "probe failed"
	}
	switch b.rates(c) {
	case "failure rate":
		return "probe failed"
	case "slow-call rate":
		return "probes slow"
	}
	return ""
}

// duplicate counts and logs a Permit recorded twice.
func (b *Breaker) duplicate() {
	b.mu.Lock()
	b.dups++
	b.mu.Unlock()
	if l := b.s.Logger; l != nil {
		l.LogAttrs(context.Background(), slog.LevelDebug, "circuit breaker permit recorded twice; ignored",
			slog.String("breaker", b.name))
	}
}

// now returns the time on the breaker's clock, in ns since its epoch
// (New, or NewRegistry). With the real clock it reads the monotonic clock
// alone.
func (b *Breaker) now() int64 {
	if b.s.realClock {
		return max(int64(time.Since(b.s.epoch)), 0)
	}
	return max(int64(b.s.Clock.Now().Sub(b.s.epoch)), 0)
}

// at converts a time on the breaker's clock, in ns since its epoch, back
// to the clock's time.
func (b *Breaker) at(t int64) time.Time { return b.s.epoch.Add(time.Duration(t)) }

// counting reports whether a breaker in state st counts outcomes in its
// window: Closed and MetricsOnly.
func counting(st State) bool { return st == Closed || st == MetricsOnly }

// noCopy makes go vet's copylocks check report a copy of the struct that
// holds it; it has no size and no cost.
type noCopy struct{}

// Lock is a no-op that tells go vet's copylocks check a noCopy is a lock.
func (*noCopy) Lock() {}

// Unlock is a no-op, the other half of Lock.
func (*noCopy) Unlock() {}
