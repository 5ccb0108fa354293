package breaker

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recur-go/recur/internal/sat"
)

// syncEvery is how many flush periods a breaker with nothing to send
// waits before it reads the shared state anyway, to catch a transition
// whose message it missed.
const syncEvery = 20

// fleet is the part of a breaker that speaks to its Config.Shared store.
type fleet struct {
	link  Link
	hurry Hurrier       // link's, if it has one
	lazy  LazyAdder     // link's, if it has one
	kick  chan struct{} // a failure asks for a flush now
	stop  chan struct{}
	done  chan struct{}
	close sync.Once

	ok   atomic.Bool   // the store answered the last operation
	full atomic.Uint64 // the word (sameMask) of a half-open spell whose fleet-wide probe slots are all taken

	pmu sync.Mutex // one publication at a time

	// Guarded by the breaker's lock.
	gen   uint64   // the shared generation the local state is in step with
	dirty bool     // a local transition the store did not take (it was unreachable)
	sent  [3]int64 // lifetime counters as of the last batch
	ticks int      // flushes since the last read of the shared state
}

// join attaches b to its store and starts its flusher, unless
// SharedFlush is negative.
func (b *Breaker) join() error {
	f := &fleet{kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	f.ok.Store(true)
	b.fleet = f
	link, err := b.s.Shared.Join(b.name, b.s.Window, func(s SharedState) { b.adopt(s, false) })
	if err != nil {
		return err
	}
	f.link = link
	f.hurry, _ = link.(Hurrier)
	f.lazy, _ = link.(LazyAdder)
	if b.s.SharedFlush < 0 {
		close(f.done)
		return nil
	}
	go b.flushLoop(b.s.SharedFlush)
	return nil
}

func (b *Breaker) flushLoop(every time.Duration) {
	f := b.fleet
	defer close(f.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-f.stop:
			return
		case <-t.C:
		case <-f.kick:
		}
		b.Flush()
	}
}

// Close stops the breaker's exchanges with its Config.Shared store: the
// background flusher and the store's notices. The breaker keeps working
// on its own counts. A breaker without a store has nothing to stop.
// Close is safe to call more than once.
func (b *Breaker) Close() error {
	f := b.fleet
	if f == nil {
		return nil
	}
	var err error
	f.close.Do(func() {
		close(f.stop)
		<-f.done
		f.pmu.Lock()
		err = f.link.Close()
		f.pmu.Unlock()
	})
	return err
}

// judgesLocally reports whether the breaker's own counts judge its rules:
// always without a store, and while the store is unreachable.
func (b *Breaker) judgesLocally() bool { return b.fleet == nil || !b.fleet.ok.Load() }

// kickFlush asks the flusher to send a failure at once, and a link that
// holds the flusher's last batch for a later round to send it now.
func (b *Breaker) kickFlush() {
	if f := b.fleet; f != nil {
		select {
		case f.kick <- struct{}{}:
		default:
		}
		if f.hurry != nil {
			f.hurry.Hurry()
		}
	}
}

// Flush sends the outcomes counted since the last batch to the breaker's
// Config.Shared store, reads the fleet's state and counts back, and opens
// the breaker if the fleet's counts trip a rule. A breaker does it every
// SharedFlush, and at once after a failure; call it yourself when
// SharedFlush is negative (a simulation on a virtual clock does). It does
// nothing without a store.
func (b *Breaker) Flush() {
	f := b.fleet
	if f == nil || f.link == nil {
		return
	}
	b.mu.Lock()
	f.ticks++
	read := f.ticks >= syncEvery || f.dirty || !f.ok.Load()
	if !read {
		if !counting(stateOf(b.word.Load())) || b.lifeLocked() == f.sent {
			b.mu.Unlock()
			return // nothing to send, nothing to read
		}
	}
	b.mu.Unlock()
	var (
		w, gen uint64
		batch  Batch
		dirty  bool
		sent   [3]int64
	)
	take := func() (uint64, Batch) {
		b.mu.Lock()
		defer b.mu.Unlock()
		w, gen, dirty, sent = b.word.Load(), f.gen, f.dirty, f.sent
		life := b.lifeLocked()
		if counting(stateOf(w)) {
			batch = Batch{
				Calls:    int(life[cCalls] - f.sent[cCalls]),
				Failures: int(life[cFailures] - f.sent[cFailures]),
				Slow:     int(life[cSlow] - f.sent[cSlow]),
			}
			batch.Streak = min(int(b.consec.Load()), batch.Failures)
		}
		f.sent = life
		return gen, batch
	}
	var (
		cur SharedState
		c   Counts
		err error
	)
	if f.lazy != nil {
		cur, c, err = f.lazy.AddLazy(take)
	} else {
		take()
		cur, c, err = f.link.Add(gen, batch)
	}
	if err != nil {
		// Not acknowledged: the batch stays counted, and goes with the
		// next one (a store that applied it and lost the answer counts
		// it twice: more failures, never fewer). The breaker judges its
		// own counts now, as it would with the store down: a failure
		// the store did not take must still be able to open it.
		b.mu.Lock()
		if b.word.Load()&sameMask == w&sameMask && f.gen == gen {
			f.sent = sent
		}
		b.mu.Unlock()
		if down(err) {
			f.ok.Store(false)
		}
		b.judgeLocally()
		return
	}
	f.ok.Store(true)
	b.mu.Lock()
	f.ticks = 0
	b.mu.Unlock()
	if cur.Gen != gen || dirty {
		f.pmu.Lock()
		b.merge(cur, gen)
		f.pmu.Unlock()
		return
	}
	if stateOf(w) != Closed || cur.State != Closed {
		return
	}
	now := b.now()
	var t transition
	b.mu.Lock()
	if b.word.Load()&sameMask == w&sameMask && f.gen == gen {
		if why := b.tripsOn(c); why != "" {
			t = b.openLocked(now, Closed, why)
		}
	}
	b.mu.Unlock()
	b.notify(t)
}

// lifeLocked returns the window's lifetime counters.
func (b *Breaker) lifeLocked() (life [3]int64) {
	for c := range life {
		life[c] = b.win.LifetimeLocked(c)
	}
	return life
}

// down reports whether a store's error says it is unreachable (see
// ErrStoreDown), rather than that one operation failed.
func down(err error) bool { return errors.Is(err, ErrStoreDown) }

// judgeLocally judges the rules on the breaker's own counts, when the
// store has just become unreachable: outcomes counted while the fleet
// judged them must not wait for the next one.
func (b *Breaker) judgeLocally() {
	now := b.now()
	b.mu.Lock()
	t := b.flushLocked(now, true)
	b.mu.Unlock()
	b.notify(t)
}

// sharedLocked returns the breaker's state as a store keeps it, for
// generation gen, at time now.
func (b *Breaker) sharedLocked(gen uint64, now int64) SharedState {
	s := SharedState{Gen: gen, State: stateOf(b.word.Load())}
	if e := b.ep; e != nil {
		s.Openings, s.Delay = e.openings, e.lastDelay
	}
	if s.State == Open || s.State == HalfOpen {
		s.Remaining = time.Duration(max(b.deadline.Load()-now, 0))
	}
	return s
}

// publish tells the store of the local transition t, unless the breaker
// has moved on since (the later transition is published instead).
func (b *Breaker) publish(t transition) {
	f := b.fleet
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

// publishState publishes next over generation base for the local word
// w, and adopts the store's state if another instance got there first.
// The caller holds f.pmu.
func (b *Breaker) publishState(base uint64, next SharedState, w uint64) {
	f := b.fleet
	cur, ok, err := f.link.Publish(base, next)
	if err != nil {
		if down(err) {
			f.ok.Store(false)
		}
		b.mu.Lock()
		f.dirty = true
		b.mu.Unlock()
		return
	}
	f.ok.Store(true)
	b.mu.Lock()
	if ok {
		if f.gen == base && b.word.Load()&sameMask == w {
			f.gen, f.dirty = cur.Gen, false
		}
		b.mu.Unlock()
		return
	}
	dirty := f.dirty
	b.mu.Unlock()
	if dirty && cur.Gen != next.Gen {
		// The store missed earlier transitions: merge, as after an outage.
		b.merge(cur, base)
		return
	}
	b.adoptReply(cur, base)
}

// adoptReply adopts cur, the store's answer to an operation made at
// generation sent: any generation, so that a store restarted empty is
// followed, unless a newer notice arrived while the answer was on its
// way (the answer is then the older).
func (b *Breaker) adoptReply(cur SharedState, sent uint64) {
	b.mu.Lock()
	moved := b.fleet.gen != sent
	b.mu.Unlock()
	b.adopt(cur, !moved)
}

// merge brings the breaker back in step with the store after their
// generations parted (cur is the store's answer to an operation made at
// generation sent) (the store was unreachable, or restarted empty).
// The rule: if the breaker changed state while the store was
// unreachable, and is now open, half-open or forced open while the fleet
// is closed, the open state wins and is published; otherwise the fleet's
// state is taken. The caller holds f.pmu.
func (b *Breaker) merge(cur SharedState, sent uint64) {
	f := b.fleet
	now := b.now()
	b.mu.Lock()
	w := b.word.Load()
	st := stateOf(w)
	if f.dirty && cur.State == Closed && (st == Open || st == HalfOpen || st == ForcedOpen) {
		f.gen, f.dirty = cur.Gen, false
		next := b.sharedLocked(cur.Gen+1, now)
		b.mu.Unlock()
		b.publishState(cur.Gen, next, w&sameMask)
		return
	}
	b.mu.Unlock()
	b.adoptReply(cur, sent)
}

// adopt takes the fleet's state s. Without force, a generation no newer
// than the one the breaker is in step with is ignored (a late or repeated
// notice); with force (the store's own answer) any other generation is
// taken, so that a store restarted empty is followed.
func (b *Breaker) adopt(s SharedState, force bool) {
	if !s.valid() {
		return // a store must not send these (redisbreaker checks); never taken
	}
	f := b.fleet
	now := b.now()
	b.mu.Lock()
	if s.Gen == f.gen && !f.dirty || s.Gen < f.gen && !force {
		b.mu.Unlock()
		return
	}
	f.gen, f.dirty = s.Gen, false
	from := stateOf(b.word.Load())
	t := transition{from: from, to: s.State, why: "fleet", remote: true}
	until := int64(sat.AddDur(time.Duration(now), s.Remaining))
	switch s.State {
	case Open, HalfOpen:
		e := b.epLocked()
		if s.State == Open && !(from == Open || from == HalfOpen) {
			e.start = now // a new run of openings
		}
		e.openings, e.lastDelay = max(s.Openings, 1), s.Delay
		if s.State == Open {
			b.stepRun(e.openings)
			b.openUntilLocked(now, until)
			t.wait, t.opening = s.Delay, e.openings
			break
		}
		b.refuseLocked(HalfOpen, now, until)
		if from == HalfOpen && probesOf(b.word.Load()) > 0 {
			// Half-open here already (on its own while the store was
			// away, or a notice was missed) with probes out: they are
			// this spell's, so that the instance never has more than
			// HalfOpenProbes out at once, whatever the store says.
			t.to = from
			break
		}
		// A new spell, even from HalfOpen (a notice was missed, no
		// probe out): its probes are not the last spell's.
		b.enterLocked(now, HalfOpen)
	default:
		if from != s.State {
			b.forgetLocked(now, s.State)
		}
	}
	b.mu.Unlock()
	b.notify(t)
}

// maxStepRun bounds stepRun: the store's opening count is a number read
// from another process, and it is stepped under the breaker's lock. A
// schedule has settled long before (an exponential reaches its cap, a
// Times stops), so the k-th delay past it is the maxStepRun-th.
const maxStepRun = 1024

// stepRun sets the open schedule to where k openings in a row leave it,
// so that the next opening waits the (k+1)-th delay (for k up to
// maxStepRun).
func (b *Breaker) stepRun(k int) {
	run := &b.ep.run
	run.Reset(b.s.Random.Seed())
	for range min(k, maxStepRun) {
		if _, ok := run.Next(0, 0); !ok {
			break
		}
	}
}

// claim takes a fleet-wide probe slot for the half-open word w, and
// reports whether the call may go on as a probe. While the store is
// unreachable the local breaker decides alone.
func (b *Breaker) claim(w uint64) (gen uint64, claimed, ok bool) {
	f := b.fleet
	if f.full.Load() == w&sameMask {
		return 0, false, false
	}
	if !f.ok.Load() {
		return 0, false, true
	}
	b.mu.Lock()
	gen = f.gen
	b.mu.Unlock()
	got, err := f.link.Claim(gen, b.s.HalfOpenProbes)
	if err != nil {
		if down(err) {
			f.ok.Store(false)
			return 0, false, true
		}
		return 0, false, false // not known down: refuse rather than probe twice
	}
	if !got {
		f.full.Store(w & sameMask)
		return 0, false, false
	}
	return gen, true, true
}

// valid reports whether s is a state a breaker can take: a known State,
// no negative count or duration. A Store checks what it reads (another
// process, or anyone with access to it, wrote it); adopt checks again.
func (s SharedState) valid() bool {
	return s.State <= MetricsOnly && s.Openings >= 0 && s.Remaining >= 0 && s.Delay >= 0
}
