package breaker

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/recur-go/recur/internal/window"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/verdict"
)

// The breaker's window counters.
const (
	cCalls    = iota // calls with a counted outcome: Success, Transient, Failure
	cFailures        // of which failed
	cSlow            // of which were slow
)

// Breaker is a circuit breaker. Make one with New; it is safe for
// concurrent use.
type Breaker struct {
	// Read on every call.
	word   atomic.Uint64 // state, generation, probes in flight; see state.go
	consec atomic.Int64  // failures in a row while closed
	s      settings
	epoch  time.Time // the clock's reading at New; times are ns since it
	_      [64]byte

	win window.Window

	until    atomic.Int64 // when an Open breaker may half-open
	probeBy  atomic.Int64 // when a HalfOpen breaker's probes time out
	openErr  atomic.Pointer[OpenError]
	rejected atomic.Uint64

	mu        sync.Mutex
	run       interp.Run    // steps OpenFor
	openings  int           // openings in a row since the last close
	episode   int64         // time of the first of them
	lastDelay time.Duration // the open duration last used
	probeOK   int           // probes that succeeded since half-opening
	opened    uint64        // openings ever, for Stats
}

// Permit is the admission Allow gives a call. Pass it to the same
// breaker's Record with the call's verdict, once. It is a small value; the
// zero Permit records nothing.
type Permit struct {
	w     uint64 // the breaker's word when it admitted the call, probes masked
	start int64  // when, if the breaker times calls
}

// New returns a closed breaker configured by c, or an error that names the
// bad field of c.
func New(c Config) (*Breaker, error) {
	s, err := resolve(c)
	if err != nil {
		return nil, err
	}
	return build(s, false), nil
}

func build(s settings, exact bool) *Breaker {
	b := &Breaker{s: s, epoch: s.Clock.Now()}
	b.win.Init(int64(s.Window)/window.Buckets, exact)
	b.run = interp.Start(s.OpenFor, 0)
	b.word.Store(next(0, Closed))
	return b
}

// Name returns the breaker's name.
func (b *Breaker) Name() string { return b.s.Name }

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
// clock read and no allocation.
func (b *Breaker) Allow() (Permit, error) {
	for {
		w := b.word.Load()
		switch stateOf(w) {
		case Closed, Disabled:
			return b.permit(w), nil
		case HalfOpen:
			if probesOf(w) < b.s.HalfOpenProbes {
				if b.word.CompareAndSwap(w, w+probeOne) {
					return b.permit(w), nil
				}
				continue
			}
			now := b.now()
			if now < b.probeBy.Load() {
				return b.reject()
			}
			b.timeout(w, now)
		case Open:
			now := b.now()
			if now < b.until.Load() {
				return b.reject()
			}
			b.halfOpen(w, now)
		default:
			return b.reject()
		}
	}
}

func (b *Breaker) permit(w uint64) Permit {
	p := Permit{w: w &^ probeMask}
	if b.s.SlowCall > 0 {
		p.start = b.now()
	}
	return p
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
// counts nothing: it says nothing about the new state.
//
// Recording a success while closed costs an atomic add and no lock, and
// about once every 64 calls on a busy breaker a clock read; a failure
// takes the breaker's lock and reads the clock.
func (b *Breaker) Record(p Permit, v verdict.Verdict) {
	w := b.word.Load()
	if p.w == 0 || w&^probeMask != p.w {
		return
	}
	counted := v == verdict.Success || v.Failed()
	var now int64
	timed, slow := b.s.SlowCall > 0 && counted, false
	if timed {
		now = b.now()
		slow = time.Duration(now-p.start) >= b.s.SlowCall
	}
	switch stateOf(w) {
	case Closed, Disabled:
		if v == verdict.Success && !slow {
			if b.win.Add(cCalls, 1) && b.mu.TryLock() {
				b.win.FlushLocked(b.now())
				b.mu.Unlock()
			}
			if b.consec.Load() != 0 {
				b.consec.Store(0)
			}
			return
		}
		if counted {
			if !timed {
				now = b.now()
			}
			b.closed(p, v.Failed(), slow, now)
		}
	case HalfOpen:
		if counted && !timed {
			now = b.now()
		}
		b.probed(p, v, slow, now)
	}
}

// closed records a failure or a slow call on a closed (or disabled)
// breaker and opens it if a rule says so.
func (b *Breaker) closed(p Permit, failed, slow bool, now int64) {
	b.mu.Lock()
	w := b.word.Load()
	if w&^probeMask != p.w {
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
	var t transition
	if stateOf(w) == Closed {
		if why := b.trips(n); why != "" {
			t = b.openLocked(now, Closed, why)
		}
	}
	b.mu.Unlock()
	b.notify(t)
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
}

// trips returns why the breaker should open, given n failures in a row,
// or "" if it should not.
func (b *Breaker) trips(n int64) string {
	if c := b.s.ConsecutiveFailures; c > 0 && n >= int64(c) {
		return "consecutive failures"
	}
	calls := b.win.Sum(cCalls)
	if calls < int64(b.s.MinCalls) || calls == 0 {
		return ""
	}
	if r := b.s.FailureRate; r > 0 && b.win.Sum(cFailures)*100 >= int64(r)*calls {
		return "failure rate"
	}
	if b.s.SlowCall > 0 && b.win.Sum(cSlow)*100 >= int64(b.s.SlowRate)*calls {
		return "slow-call rate"
	}
	return ""
}

// probed records a probe's outcome: a failure or a slow call opens the
// breaker again, the last of the probes succeeding closes it, and an
// outcome that counts nothing frees the probe's place.
func (b *Breaker) probed(p Permit, v verdict.Verdict, slow bool, now int64) {
	b.mu.Lock()
	w := b.word.Load()
	if w&^probeMask != p.w {
		b.mu.Unlock()
		return
	}
	var t transition
	switch {
	case v.Failed() || v == verdict.Success && slow:
		b.count(now, v.Failed(), slow)
		t = b.openLocked(now, HalfOpen, "probe failed")
	case v == verdict.Success:
		b.count(now, false, false)
		if b.probeOK++; b.probeOK >= b.s.HalfOpenProbes {
			t = b.closeLocked(now)
		}
	default:
		for w := b.word.Load(); probesOf(w) > 0 && !b.word.CompareAndSwap(w, w-probeOne); w = b.word.Load() {
		}
	}
	b.mu.Unlock()
	b.notify(t)
}

// now returns the time on the breaker's clock, in ns since New.
func (b *Breaker) now() int64 { return max(int64(b.s.Clock.Now().Sub(b.epoch)), 0) }

// at converts a time in ns since New back to the clock's time.
func (b *Breaker) at(t int64) time.Time { return b.epoch.Add(time.Duration(t)) }
