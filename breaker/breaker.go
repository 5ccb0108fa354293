package breaker

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recur-go/recur/internal/sat"
	"github.com/recur-go/recur/internal/window"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/verdict"
)

const maxBatch = 256 // the most successes pending before the window reads the clock

// The window's counters.
const (
	cCalls    = iota // calls with a counted outcome: Success, Transient, Failure
	cFailures        // of which failed
	cSlow            // of which were slow
)

// Breaker is a circuit breaker, made by New; it is safe for concurrent use.
type Breaker struct {
	win      window.Window
	word     atomic.Uint64 // state, generation, probes in flight, armed; see state.go
	s        *settings     // shared by the breakers of a Registry
	name     string
	consec   atomic.Int64  // failures in a row while closed
	rejected atomic.Uint64 // calls Allow refused, for Stats
	deadline atomic.Int64  // when an Open breaker may half-open, a HalfOpen one's probes time out
	openErr  atomic.Pointer[OpenError]

	mu    sync.Mutex
	ring  *ring    // the count-based window, if CountWindow is set
	ep    *episode // made the first time the breaker leaves Closed
	dups  uint64   // permits recorded twice, for Stats
	fleet *fleet   // the Config.Shared store's side, or nil
}

// episode, under the lock, is what a breaker that has opened keeps.
type episode struct {
	run       interp.Run    // steps OpenFor
	openings  int           // openings in a row since the last close
	start     int64         // time of the first of them
	lastDelay time.Duration // the open duration last used
	probes    probeTally    // the half-open probes' slots and outcomes
	opened    uint64        // openings ever, for Stats
}

func (b *Breaker) epLocked() *episode {
	if b.ep == nil {
		b.ep = &episode{run: interp.Start(b.s.OpenFor, 0)}
	}
	return b.ep
}

// Permit is the admission Allow gives a call: pass its address to the same
// breaker's Record once. A copy would be recorded as a second call, so go
// vet's copylocks check reports one (p2 := p, a Permit passed by value);
// keep it in one variable or field. The zero Permit records nothing.
type Permit struct {
	_ [0]sync.Mutex // of no size; go vet's copylocks check reports a copy
	g grant
}

// grant is what a Permit holds.
type grant struct {
	w      uint64 // the breaker's word when it admitted the call, probes and armed bit masked
	start  int64  // when, if the breaker times calls
	slot   uint16 // the probe's slot + 1, if half-open
	ticket uint32 // the probe's ticket, if half-open
}

// New returns a closed breaker configured by c, or an error naming the bad
// field of c.
func New(c Config) (*Breaker, error) {
	s, err := resolve(c)
	if err != nil {
		return nil, err
	}
	b := build(&s, s.Name, false)
	if err := b.join(); err != nil {
		return nil, err
	}
	return b, nil
}

func build(s *settings, name string, exact bool) *Breaker {
	b := &Breaker{s: s, name: name}
	b.win.Init(int64(s.Window)/window.Buckets, maxBatch, exact)
	if s.CountWindow > 0 {
		b.ring = &ring{slots: make([]uint8, s.CountWindow)}
	}
	b.enterLocked(b.now(), Closed) // no lock: no one else has b yet
	return b
}

// Name returns the breaker's name.
func (b *Breaker) Name() string { return b.name }

// State returns the breaker's state. An Open breaker whose open duration
// has passed says Open until the next call half-opens it.
func (b *Breaker) State() State { return stateOf(b.word.Load()) }

// Allow asks to make a call. It returns a Permit to give Record once the
// call's outcome is known, whatever it is, or an *OpenError (errors.Is
// matches ErrOpen), and the call must then fail at once. With
// Config.Shared, a half-open breaker's would-be probe claims its slot in
// the store, a round trip within the store's timeout.
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
		// Open, or HalfOpen with every probe out: refused until the deadline.
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

// tryProbe admits a probe if the half-open word w has a free slot, here
// and, with a reachable store, in the fleet (while it is unreachable the
// breaker decides alone); again means that w changed: look again.
func (b *Breaker) tryProbe(w uint64) (g grant, ok, again bool) {
	f, gen, claimed := b.fleet, uint64(0), false
	if f != nil && f.full.Load() == w&sameMask {
		return grant{}, false, false
	}
	if f != nil && f.ok.Load() {
		b.mu.Lock()
		gen = f.gen
		b.mu.Unlock()
		got, err := f.link.Claim(gen, b.s.HalfOpenProbes)
		switch {
		case err != nil && !f.lost(err):
			return grant{}, false, false // not known down: refuse rather than probe twice
		case err == nil && !got:
			f.full.Store(w & sameMask)
			return grant{}, false, false
		}
		claimed = err == nil
	}
	b.mu.Lock()
	if ok = b.word.Load() == w && probesOf(w) < b.s.HalfOpenProbes; ok {
		b.word.Store(w + probeOne)
		g = b.permit(w)
		g.slot, g.ticket = b.ep.probes.take()
	}
	b.mu.Unlock()
	if !ok && claimed {
		_ = f.link.Release(gen)
	}
	return g, ok, !ok
}

func (b *Breaker) reject() (Permit, error) {
	b.rejected.Add(1)
	if e := b.openErr.Load(); e != nil {
		return Permit{}, e
	}
	return Permit{}, ErrOpen
}

// Record reports the outcome v of the call that Allow gave *pp for, and
// judges the rules. Success counts for the target; Transient and Failure
// against it; Retryable, Neutral and unknown verdicts nothing; a call of
// SlowCall or longer also counts as slow. Nothing counts on a Disabled
// breaker, nor for a call admitted before the breaker last changed state.
// Record marks *pp recorded (a nil pp records nothing); a duplicate (see
// Stats.Duplicates) counts only there, with a record at Debug.
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
	timed, slow := counted && b.s.SlowCall > 0, false
	if timed { // one clock read serves the slow-call test and the count
		now = b.now()
		slow = time.Duration(now-p.start) >= b.s.SlowCall
	}
	switch st := stateOf(w); {
	case counting(st) && counted:
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

// flushLocked counts the pending successes, and judges the window if judge.
func (b *Breaker) flushLocked(now int64, judge bool) transition {
	b.win.FlushLocked(now)
	return b.judgeLocked(now, judge, b.consec.Load())
}

// judgeLocked opens a closed breaker with n failures in a row if judge is
// set and a rule says so, arms it otherwise, and returns the transition.
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

// closed records an outcome that the closed fast path does not take.
func (b *Breaker) closed(p grant, failed, slow bool, now int64) {
	b.mu.Lock()
	if b.word.Load()&sameMask != p.w {
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
	if f := b.fleet; failed && f != nil { // ask the flusher, and a Hurrier link, to send it now
		select {
		case f.kick <- struct{}{}:
		default:
		}
		if f.hurry != nil {
			f.hurry.Hurry()
		}
	}
}

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

func (b *Breaker) counts() Counts {
	c := Counts{Calls: int(b.win.Sum(cCalls)), Failures: int(b.win.Sum(cFailures)), Slow: int(b.win.Sum(cSlow))}
	if b.ring != nil {
		c = b.ring.c
	}
	c.ConsecutiveFailures = int(b.consec.Load())
	return c
}

// tripsOn returns why c opens the breaker, or "".
func (b *Breaker) tripsOn(c Counts) string {
	if f := b.s.TripWhen; f != nil {
		if f(c) {
			return "trip predicate"
		}
		return ""
	}
	if k := b.s.ConsecutiveFailures; k > 0 && c.ConsecutiveFailures >= k {
		return "consecutive failures"
	}
	if c.Calls < b.s.MinCalls || c.Calls == 0 {
		return ""
	}
	return b.rates(c)
}

// rates returns the rate rule c breaks, or "".
func (b *Breaker) rates(c Counts) string {
	if r := b.s.FailureRate; r > 0 && c.Failures*100 >= r*c.Calls {
		return "failure rate"
	}
	if b.s.SlowCall > 0 && c.Slow*100 >= b.s.SlowRate*c.Calls {
		return "slow-call rate"
	}
	return ""
}

// armLocked sets the armed bit, which sends successes down the locked
// path, with CountWindow or TripWhen, or while one more success (raising
// the calls, perhaps to MinCalls) would trip a rate rule: now or once older
// buckets slide out, so it checks the newest bucket, the newest two, ....
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

// probed records a probe's outcome: one that counts nothing frees its
// place; once all are counted, their rates (the fleet's, with a store)
// close the breaker or reopen it.
func (b *Breaker) probed(p grant, v verdict.Verdict, counted, slow bool, now int64) {
	b.mu.Lock()
	w := b.word.Load()
	if w&sameMask != p.w {
		b.mu.Unlock()
		return
	}
	e, f, gen := b.ep, b.fleet, uint64(0)
	if f != nil {
		gen = f.gen
	}
	if !e.probes.give(p.slot, p.ticket) {
		b.mu.Unlock()
		b.duplicate()
		return
	}
	if !counted {
		b.word.Store(w - probeOne)
		b.mu.Unlock()
		if f != nil && f.ok.Load() {
			_ = f.link.Release(gen)
		}
		return
	}
	failed := v.Failed()
	b.count(now, failed, slow)
	e.probes.c.add(failed, slow, 1)
	c := e.probes.c
	if f != nil && b.s.HalfOpenProbes > 1 && f.ok.Load() {
		b.mu.Unlock()
		var one Counts
		one.add(failed, slow, 1)
		cur, fc, err := f.link.Add(gen, Batch{Calls: 1, Failures: one.Failures, Slow: one.Slow, Streak: one.Failures})
		f.lost(err)
		b.mu.Lock()
		c = e.probes.c
		if err == nil && cur.Gen == gen {
			c = fc
		}
	}
	var t transition
	if b.word.Load()&sameMask == p.w && c.Calls >= b.s.HalfOpenProbes {
		switch why := b.rates(c); {
		case why == "failure rate" || b.s.FailureRate < 0 && c.Failures > 0:
			t = b.openLocked(now, HalfOpen, "probe failed")
		case why != "":
			t = b.openLocked(now, HalfOpen, "probes slow")
		default:
			b.enterLocked(now, Closed)
			t = transition{from: HalfOpen, to: Closed, word: b.word.Load() & sameMask}
		}
	}
	b.mu.Unlock()
	b.notify(t)
}

func (b *Breaker) duplicate() {
	b.mu.Lock()
	b.dups++
	b.mu.Unlock()
	if l := b.s.Logger; l != nil {
		l.LogAttrs(context.Background(), slog.LevelDebug, "circuit breaker permit recorded twice; ignored",
			slog.String("breaker", b.name))
	}
}

// now returns the time in ns since the epoch; the real clock is read
// through the monotonic clock alone.
func (b *Breaker) now() int64 {
	if b.s.realClock {
		return max(int64(time.Since(b.s.epoch)), 0)
	}
	return max(int64(b.s.Clock.Now().Sub(b.s.epoch)), 0)
}

func counting(st State) bool { return st == Closed || st == MetricsOnly }

// transition describes a state change for notify; the zero value is none.
type transition struct {
	from, to State
	why      string
	wait     time.Duration // the open duration, when opening
	opening  int           // openings in a row, when opening
	word     uint64        // the breaker's word after it (sameMask), for a store
	remote   bool          // learnt from the store: not to be published again
}

// openLocked opens the breaker from state from and returns the transition.
func (b *Breaker) openLocked(now int64, from State, why string) transition {
	e := b.epLocked()
	if from != HalfOpen {
		e.openings, e.start = 0, now
		e.run.Reset(b.s.Random.Seed())
	}
	e.openings++
	since := time.Duration(now - e.start)
	d, ok := e.run.Next(since, since)
	switch {
	case ok:
		e.lastDelay = d
	case e.openings == 1:
		e.lastDelay = b.s.firstDelay // this seed stopped at once; seed 0 does not
	}
	b.openUntilLocked(now, int64(sat.AddDur(time.Duration(now), e.lastDelay)))
	return transition{from: from, to: Open, why: why, wait: e.lastDelay, opening: e.openings, word: b.word.Load() & sameMask}
}

func (b *Breaker) openUntilLocked(now, until int64) {
	b.refuseLocked(Open, now, until)
	if stateOf(b.word.Load()) != Open {
		b.ep.opened++
		b.enterLocked(now, Open)
	}
}

// refuseLocked sets the deadline and the error of refusals in state st:
// Open until until, HalfOpen (all probes out) until the probes time out at
// until, ForcedOpen until an operator acts.
func (b *Breaker) refuseLocked(st State, now, until int64) {
	e := &OpenError{Name: b.name, State: st}
	switch st {
	case Open:
		e.Until, e.For = b.s.epoch.Add(time.Duration(until)), b.ep.lastDelay
	case HalfOpen:
		e.Until = b.s.epoch.Add(time.Duration(now))
	}
	b.deadline.Store(until)
	b.openErr.Store(e)
}

// expire moves a breaker of word w past its deadline: Open half-opens;
// HalfOpen, whose probes did not all report in time, opens again.
func (b *Breaker) expire(w uint64, now int64) {
	b.mu.Lock()
	var t transition
	switch cur := b.word.Load(); {
	case stateOf(w) == Open && cur == w:
		b.refuseLocked(HalfOpen, now, int64(sat.AddDur(time.Duration(now), b.ep.lastDelay)))
		b.enterLocked(now, HalfOpen)
		t = transition{from: Open, to: HalfOpen, word: b.word.Load() & sameMask}
	case stateOf(w) == HalfOpen && cur&^probeMask == w&^probeMask:
		t = b.openLocked(now, HalfOpen, "probe timed out")
	}
	b.mu.Unlock()
	b.notify(t)
}

// enterLocked starts a new generation in state s, with an empty window and
// streak and, entering HalfOpen, new probes.
func (b *Breaker) enterLocked(now int64, s State) {
	b.win.ResetLocked(now)
	if b.ring != nil {
		*b.ring = ring{slots: b.ring.slots}
	}
	b.consec.Store(0)
	if s == HalfOpen {
		b.epLocked().probes.reset(b.s.HalfOpenProbes)
	}
	b.word.Store(next(b.word.Load(), s))
	b.armLocked()
	if f := b.fleet; f != nil {
		f.sent = b.lifeLocked()
	}
}

// ForceOpen refuses every call, with an *OpenError of State ForcedOpen,
// until an operator's next action: shedding a dependency in an incident.
func (b *Breaker) ForceOpen() { b.set(ForcedOpen) }

// Disable lets every call through and counts nothing, until an
// operator's next action (Resilience4j's DISABLED).
func (b *Breaker) Disable() { b.set(Disabled) }

// MetricsOnly lets every call through and counts outcomes, but never
// opens, until an operator's next action (Resilience4j's METRICS_ONLY).
func (b *Breaker) MetricsOnly() { b.set(MetricsOnly) }

// Reset closes the breaker and forgets its window, streak and openings.
func (b *Breaker) Reset() { b.set(Closed) }

func (b *Breaker) set(s State) {
	now := b.now()
	b.mu.Lock()
	from := stateOf(b.word.Load())
	b.forgetLocked(now, s)
	w := b.word.Load() & sameMask
	b.mu.Unlock()
	b.notify(transition{from: from, to: s, why: "operator", word: w})
}

// forgetLocked moves the breaker to state s and forgets its openings, as
// an operator's action does (here or on another instance of a fleet).
func (b *Breaker) forgetLocked(now int64, s State) {
	if b.ep != nil {
		b.ep.openings = 0
	}
	if s == ForcedOpen {
		b.refuseLocked(ForcedOpen, now, 0)
	}
	b.enterLocked(now, s)
}

// notify logs and reports t, outside the lock, and publishes it to the store.
func (b *Breaker) notify(t transition) {
	if t.from == t.to {
		return
	}
	if l := b.s.Logger; l != nil {
		level, msg := slog.LevelInfo, "circuit breaker "+t.to.String()
		attrs := []slog.Attr{slog.String("breaker", b.name), slog.String("from", t.from.String())}
		switch t.to {
		case Open:
			attrs = append(attrs, slog.String("reason", t.why), slog.Duration("for", t.wait), slog.Int("opening", t.opening))
			fallthrough
		case ForcedOpen:
			level = slog.LevelWarn
		}
		l.LogAttrs(context.Background(), level, msg, attrs...)
	}
	if h := b.s.OnStateChange; h != nil {
		h(b.name, t.from, t.to)
	}
	f := b.fleet
	if f == nil || t.remote || f.link == nil {
		return
	}
	// Publish t, unless the breaker has moved on (the later one is published instead).
	f.pmu.Lock()
	defer f.pmu.Unlock()
	now := b.now()
	b.mu.Lock()
	if b.word.Load()&sameMask != t.word {
		b.mu.Unlock()
		return
	}
	base := f.gen
	next := b.sharedLocked(base+1, now)
	b.mu.Unlock()
	b.publishState(base, next, t.word)
}
