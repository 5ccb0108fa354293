package breaker

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recur-go/recur/internal/sat"
)

// DefaultSharedFlush is Config.SharedFlush's default.
const DefaultSharedFlush = 5 * time.Millisecond

// ErrStoreDown is what a Link returns (errors.Is) while its store is known
// to be unreachable (its guard is open, say): the breaker goes on with its
// own counts until the store answers. Any other error is one operation
// that failed: the breaker still trusts the store, tries again at its next
// flush, and refuses a probe whose slot it could not claim.
var ErrStoreDown = errors.New("breaker: shared store unreachable")

// Store keeps the state that the breakers of one name in many processes
// share (Config.Shared), as gobreaker v2's SharedDataStore does. Package
// redisbreaker keeps it in Redis, breakertest.MemStore in memory. A breaker
// calls Join once, in New, then its Link from any goroutine, never under
// its own lock; every method must answer soon, with an error if the store
// does not. docs/fleet.md says what a breaker does with the answers.
type Store interface {
	// Join attaches the breaker named name, whose rate rules look back
	// window, to the store's state for name. Until the Link's Close
	// returns, the store calls apply (safe for concurrent use) with the
	// shared state when another instance publishes a transition; it may
	// also for the caller's own, and repeat one. An error is a
	// misconfiguration, which New returns; an unreachable store is not:
	// Join succeeds, and the Link's methods fail until it answers.
	Join(name string, window time.Duration, apply func(SharedState)) (Link, error)
}

// Link is one breaker's connection to a Store; its methods are called
// concurrently.
type Link interface {
	// Publish moves the shared state from generation gen to next, whose
	// Gen is gen+1, if it is still at gen, in one atomic step that also
	// empties the shared window and the probes' tally and tells every
	// joined breaker. It returns the state after the attempt, and whether
	// it was made.
	Publish(gen uint64, next SharedState) (now SharedState, ok bool, err error)
	// Claim takes one of n probe slots of the half-open generation gen if
	// one is free: fleet-wide, at most n are taken per generation.
	Claim(gen uint64, n int) (bool, error)
	// Release gives back a slot Claim took in generation gen, for a probe
	// whose outcome counted nothing.
	Release(gen uint64) error
	// Add adds b to the shared counts of generation gen, if it is still
	// at gen: to the window (its current bucket, window/10 wide on the
	// store's clock) while Closed or MetricsOnly, to the probes' tally
	// while HalfOpen. It returns the state and the counts the rules judge:
	// the window's 10 buckets and the fleet's failure streak, or the
	// tally. An empty batch only reads. A breaker sends a batch again with
	// the next after an error, so an error must mean "not applied", as far
	// as the store knows. Add may hold b to send it with other breakers'
	// batches, but not a probe's outcome after a granted Claim, which
	// Record sends from the caller's goroutine.
	Add(gen uint64, b Batch) (SharedState, Counts, error)
	// Close detaches the breaker: apply is not called after it returns.
	Close() error
}

// Hurrier is a Link that holds batches for a later round: a breaker calls
// Hurry, which must not block, when it counts a failure, and the link
// sends what it holds at once, so that the failure is not kept waiting.
type Hurrier interface {
	Hurry()
}

// LazyAdder is a Link that sends batches in later rounds: Flush calls
// AddLazy instead of Add, and the link calls take once, when it makes up
// the round, for the generation and batch, so that the batch holds every
// outcome until then, not old successes past other instances' failures.
type LazyAdder interface {
	AddLazy(take func() (gen uint64, b Batch)) (SharedState, Counts, error)
}

// SharedState is a breaker's state as a Store keeps it.
type SharedState struct {
	Gen       uint64        // 0 until a breaker of the name publishes (Closed), then one more per transition
	State     State         // the fleet's state
	Openings  int           // openings in a row since the fleet last closed: OpenFor's k
	Remaining time.Duration // until Open may half-open, or HalfOpen's probes time out: the store's deadline, as of its answer
	Delay     time.Duration // the open duration last used
}

// Batch is the outcomes a breaker counted since its previous batch: Calls,
// Failures and Slow as in Counts, and Streak, the failures in a row at its
// end. A store adds a batch of failures only (Failures == Calls) to the
// fleet's streak, and otherwise sets the streak to Streak, so the order of
// outcomes across instances is lost (see docs/fleet.md).
type Batch struct {
	Calls, Failures, Slow, Streak int
}

// syncEvery is how many flushes with nothing to send pass before one reads
// the shared state anyway, in case a notice was missed.
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
	pmu  sync.Mutex    // one publication at a time

	// Guarded by the breaker's lock.
	gen   uint64   // the shared generation the local state is in step with
	dirty bool     // a local transition the store did not take (it was unreachable)
	sent  [3]int64 // lifetime counters as of the last batch
	ticks int      // flushes since the last read of the shared state
}

// join attaches b to its Config.Shared store, if any, and starts its
// flusher unless SharedFlush is negative.
func (b *Breaker) join() error {
	if b.s.Shared == nil {
		return nil
	}
	f := &fleet{kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	f.ok.Store(true)
	b.fleet = f
	link, err := b.s.Shared.Join(b.name, b.s.Window, func(s SharedState) { b.adopt(s, false) })
	if err != nil {
		b.fleet = nil
		return err
	}
	f.link = link
	f.hurry, _ = link.(Hurrier)
	f.lazy, _ = link.(LazyAdder)
	if b.s.SharedFlush < 0 {
		close(f.done)
		return nil
	}
	go func() {
		defer close(f.done)
		t := time.NewTicker(b.s.SharedFlush)
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
	}()
	return nil
}

// Close stops the breaker's flusher and its store's notices; the breaker
// goes on with its own counts. It does nothing without Config.Shared, and
// may be called more than once.
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
// without a store, or while it is unreachable.
func (b *Breaker) judgesLocally() bool { return b.fleet == nil || !b.fleet.ok.Load() }

// Flush sends the outcomes counted since the last batch to the
// Config.Shared store, reads back the fleet's state and counts, and opens
// the breaker if those trip a rule. The flusher calls it every SharedFlush
// and after a failure; with SharedFlush negative, call it yourself. It does
// nothing without a store.
func (b *Breaker) Flush() {
	f := b.fleet
	if f == nil || f.link == nil {
		return
	}
	b.mu.Lock()
	f.ticks++
	idle := f.ticks < syncEvery && !f.dirty && f.ok.Load() && (!counting(stateOf(b.word.Load())) || b.lifeLocked() == f.sent)
	b.mu.Unlock()
	if idle {
		return // nothing to send, nothing to read
	}
	var (
		w, gen uint64
		dirty  bool
		sent   [3]int64
	)
	take := func() (uint64, Batch) {
		b.mu.Lock()
		defer b.mu.Unlock()
		w, gen, dirty, sent = b.word.Load(), f.gen, f.dirty, f.sent
		life := b.lifeLocked()
		var batch Batch
		if counting(stateOf(w)) {
			batch = Batch{Calls: int(life[cCalls] - sent[cCalls]), Failures: int(life[cFailures] - sent[cFailures]), Slow: int(life[cSlow] - sent[cSlow])}
			batch.Streak = min(int(b.consec.Load()), batch.Failures)
		}
		f.sent = life
		return gen, batch
	}
	var cur SharedState
	var c Counts
	var err error
	if f.lazy != nil {
		cur, c, err = f.lazy.AddLazy(take)
	} else {
		cur, c, err = f.link.Add(take())
	}
	parted := err == nil && (cur.Gen != gen || dirty)
	now := b.now()
	var t transition
	b.mu.Lock()
	same := b.word.Load()&sameMask == w&sameMask && f.gen == gen
	if err != nil {
		// Not acknowledged: the batch goes again with the next, and the
		// breaker's own counts judge now (docs/fleet.md: one failed operation).
		f.lost(err)
		if same {
			f.sent = sent
		}
		t = b.flushLocked(now, true)
	} else {
		f.ok.Store(true)
		f.ticks = 0
		if !parted && same && stateOf(w) == Closed && cur.State == Closed {
			if why := b.tripsOn(c); why != "" {
				t = b.openLocked(now, Closed, why)
			}
		}
	}
	b.mu.Unlock()
	if parted {
		f.pmu.Lock()
		b.settle(cur, gen, true)
		f.pmu.Unlock()
	}
	b.notify(t)
}

// lifeLocked returns the window's lifetime counters.
func (b *Breaker) lifeLocked() (life [3]int64) {
	for c := range life {
		life[c] = b.win.LifetimeLocked(c)
	}
	return life
}

// lost reports whether err is ErrStoreDown, and if so marks the store down.
func (f *fleet) lost(err error) bool {
	down := errors.Is(err, ErrStoreDown)
	if down {
		f.ok.Store(false)
	}
	return down
}

// sharedLocked returns the breaker's state, as generation gen, for a store.
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

// publishState publishes next over generation base for the word w, and
// settles with the store if another instance got there first. The caller
// holds f.pmu, as for settle.
func (b *Breaker) publishState(base uint64, next SharedState, w uint64) {
	f := b.fleet
	cur, ok, err := f.link.Publish(base, next)
	if err == nil {
		f.ok.Store(true)
	}
	f.lost(err)
	b.mu.Lock()
	switch {
	case err != nil:
		f.dirty = true
	case ok && f.gen == base && b.word.Load()&sameMask == w:
		f.gen, f.dirty = cur.Gen, false
	}
	dirty := f.dirty
	b.mu.Unlock()
	if err == nil && !ok {
		b.settle(cur, base, dirty && cur.Gen != next.Gen) // with dirty, the store missed earlier transitions
	}
}

// settle brings the breaker in step with cur, the store's answer to an
// operation at generation sent. With merge (the generations parted: the
// store was away, or restarted empty), a breaker that changed state
// meanwhile and refuses calls while the fleet is closed publishes its
// state: open wins. Otherwise it adopts cur, of any generation, unless a
// newer notice came while the answer was on its way.
func (b *Breaker) settle(cur SharedState, sent uint64, merge bool) {
	f := b.fleet
	now := b.now()
	b.mu.Lock()
	w := b.word.Load()
	if st := stateOf(w); merge && f.dirty && cur.State == Closed && (st == Open || st == HalfOpen || st == ForcedOpen) {
		f.gen, f.dirty = cur.Gen, false
		next := b.sharedLocked(cur.Gen+1, now)
		b.mu.Unlock()
		b.publishState(cur.Gen, next, w&sameMask)
		return
	}
	moved := f.gen != sent
	b.mu.Unlock()
	b.adopt(cur, !moved)
}

// adopt takes the fleet's state s, unless the breaker is in step with
// s.Gen already or, without force (the store's own answer), s is older.
func (b *Breaker) adopt(s SharedState, force bool) {
	if s.State > MetricsOnly || s.Openings < 0 || s.Remaining < 0 || s.Delay < 0 {
		return // no state a breaker can take: a Store checks what it reads, and so does adopt
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
			e.run.Reset(b.s.Random.Seed()) // step to where k openings in a row leave it
			for range min(e.openings, maxStepRun) {
				if _, ok := e.run.Next(0, 0); !ok {
					break
				}
			}
			b.openUntilLocked(now, until)
			t.wait, t.opening = s.Delay, e.openings
			break
		}
		b.refuseLocked(HalfOpen, now, until)
		if from == HalfOpen && probesOf(b.word.Load()) > 0 {
			// Half-open here already with probes out: they are this
			// spell's, so no more than HalfOpenProbes are ever out here.
			t.to = from
			break
		}
		// A new spell, even from HalfOpen with no probe out.
		b.enterLocked(now, HalfOpen)
	default:
		if from != s.State {
			b.forgetLocked(now, s.State)
		}
	}
	b.mu.Unlock()
	b.notify(t)
}

// maxStepRun bounds the steps of OpenFor that a count from another
// process takes under the lock; a schedule has settled long before.
const maxStepRun = 1024
