package breaker

import (
	"context"
	"log/slog"
	"time"

	"github.com/recur-go/recur/internal/sat"
)

// transition describes a state change for notify; the zero value is none.
type transition struct {
	from, to State
	why      string
	wait     time.Duration // the open duration, when opening
	opening  int           // openings in a row, when opening
	word     uint64        // the breaker's word after it (sameMask), for a store
	remote   bool          // learnt from the store: not to be published again
}

// openLocked opens the breaker at time now, coming from state from, and
// returns the transition to report. The caller holds b.mu.
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
		// This seed made the schedule stop at once; New checked that seed
		// 0 does not.
		e.lastDelay = b.s.firstDelay
	}
	b.openUntilLocked(now, int64(sat.AddDur(time.Duration(now), e.lastDelay)))
	return transition{from: from, to: Open, why: why, wait: e.lastDelay, opening: e.openings, word: b.word.Load() & sameMask}
}

// openUntilLocked makes the breaker Open until time until, for an
// opening of the episode's lastDelay.
func (b *Breaker) openUntilLocked(now, until int64) {
	b.refuseLocked(Open, now, until)
	if stateOf(b.word.Load()) != Open {
		b.ep.opened++
		b.enterLocked(now, Open)
	}
}

// refuseLocked sets the deadline and the error with which the breaker
// refuses calls in state st, as of time now: Open until until, HalfOpen
// (all probes out) until its probes time out at until, ForcedOpen until
// an operator acts.
func (b *Breaker) refuseLocked(st State, now, until int64) {
	e := &OpenError{Name: b.name, State: st}
	switch st {
	case Open:
		e.Until, e.For = b.at(until), b.ep.lastDelay
	case HalfOpen:
		e.Until = b.at(now)
	}
	b.deadline.Store(until)
	b.openErr.Store(e)
}

// expire moves a breaker whose word was w past its deadline at time now:
// an Open one half-opens; a HalfOpen one whose probes have not all
// reported within the open duration opens again, since a probe that was
// never recorded must not keep it half-open forever.
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

// enterLocked starts a new generation in state s: the window, the failure
// streak and, entering HalfOpen, the probes start again.
func (b *Breaker) enterLocked(now int64, s State) {
	b.win.ResetLocked(now)
	if b.ring != nil {
		b.ring.reset()
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

// ForceOpen opens the breaker until Reset or Disable: every call is refused
// with an *OpenError whose State is ForcedOpen. It is for operators, for
// example to shed a dependency during an incident.
func (b *Breaker) ForceOpen() { b.set(ForcedOpen) }

// Disable turns the breaker off until Reset, ForceOpen or MetricsOnly:
// every call goes through and nothing is counted (Resilience4j's
// DISABLED).
func (b *Breaker) Disable() { b.set(Disabled) }

// MetricsOnly makes the breaker watch only, until Reset, ForceOpen or
// Disable: every call goes through and outcomes are counted in Stats and
// in the window, but nothing opens it (Resilience4j's METRICS_ONLY).
func (b *Breaker) MetricsOnly() { b.set(MetricsOnly) }

// Reset closes the breaker, whatever its state, and forgets its history:
// the window, the failure streak and the open schedule start again.
func (b *Breaker) Reset() { b.set(Closed) }

func (b *Breaker) set(s State) {
	now := b.now()
	b.mu.Lock()
	from := stateOf(b.word.Load())
	b.forgetLocked(now, s)
	w := b.word.Load() & sameMask
	b.mu.Unlock()
	if from != s {
		b.notify(transition{from: from, to: s, why: "operator", word: w})
	}
}

// forgetLocked moves the breaker to state s, forgetting its openings in
// a row: what an operator's action does, and a fleet's that another
// instance took.
func (b *Breaker) forgetLocked(now int64, s State) {
	if b.ep != nil {
		b.ep.openings = 0
	}
	if s == ForcedOpen {
		b.refuseLocked(ForcedOpen, now, 0)
	}
	b.enterLocked(now, s)
}

// notify logs t and calls the hook, outside the lock.
func (b *Breaker) notify(t transition) {
	if t.from == t.to {
		return
	}
	if l := b.s.Logger; l != nil {
		level, msg := slog.LevelInfo, "circuit breaker "+t.to.String()
		attrs := []slog.Attr{slog.String("breaker", b.name), slog.String("from", t.from.String())}
		switch t.to {
		case Open:
			level = slog.LevelWarn
			attrs = append(attrs, slog.String("reason", t.why), slog.Duration("for", t.wait), slog.Int("opening", t.opening))
		case ForcedOpen:
			level = slog.LevelWarn
		}
		l.LogAttrs(context.Background(), level, msg, attrs...)
	}
	if h := b.s.OnStateChange; h != nil {
		h(b.name, t.from, t.to)
	}
	if b.fleet != nil && !t.remote && b.fleet.link != nil {
		b.publish(t)
	}
}
