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

// openLocked opens the breaker, from state from, and returns the
// transition to report.
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

// openUntilLocked makes the breaker Open until until, for lastDelay.
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
		e.Until, e.For = b.at(until), b.ep.lastDelay
	case HalfOpen:
		e.Until = b.at(now)
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
