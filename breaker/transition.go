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
	if from != HalfOpen {
		b.openings, b.episode = 0, now
		b.run.Reset(b.s.Random.Seed())
	}
	b.openings++
	since := time.Duration(now - b.episode)
	d, ok := b.run.Next(since, since)
	switch {
	case ok:
		b.lastDelay = d
	case b.openings == 1:
		// This seed made the schedule stop at once; New checked that seed
		// 0 does not.
		d, b.lastDelay = b.s.firstDelay, b.s.firstDelay
	default:
		d = b.lastDelay
	}
	until := int64(sat.AddDur(time.Duration(now), d))
	b.until.Store(until)
	b.openErr.Store(&OpenError{Name: b.s.Name, State: Open, Until: b.at(until), For: d})
	b.opened++
	b.enterLocked(now, Open)
	return transition{from: from, to: Open, why: why, wait: d, opening: b.openings, word: b.word.Load() & sameMask}
}

// halfOpen moves an Open breaker whose word is still w to HalfOpen.
func (b *Breaker) halfOpen(w uint64, now int64) {
	b.mu.Lock()
	if b.word.Load() != w {
		b.mu.Unlock()
		return
	}
	b.openErr.Store(&OpenError{Name: b.s.Name, State: HalfOpen, Until: b.at(now)})
	b.probeBy.Store(int64(sat.AddDur(time.Duration(now), b.lastDelay)))
	b.enterLocked(now, HalfOpen)
	t := transition{from: Open, to: HalfOpen, word: b.word.Load() & sameMask}
	b.mu.Unlock()
	b.notify(t)
}

// timeout opens a HalfOpen breaker whose generation is still w's and
// whose probes have not all reported within the open duration: a probe
// that was never recorded must not keep the breaker half-open forever.
func (b *Breaker) timeout(w uint64, now int64) {
	b.mu.Lock()
	var t transition
	if b.word.Load()&^probeMask == w&^probeMask {
		t = b.openLocked(now, HalfOpen, "probe timed out")
	}
	b.mu.Unlock()
	b.notify(t)
}

// closeLocked closes a half-open breaker whose probes passed.
func (b *Breaker) closeLocked(now int64) transition {
	b.enterLocked(now, Closed)
	return transition{from: HalfOpen, to: Closed, word: b.word.Load() & sameMask}
}

// enterLocked starts a new generation in state s: the window, the failure
// streak and the probe count start again.
func (b *Breaker) enterLocked(now int64, s State) {
	b.win.ResetLocked(now)
	b.ring.reset()
	b.consec.Store(0)
	b.probes.reset(b.s.HalfOpenProbes)
	b.word.Store(next(b.word.Load(), s))
	b.armLocked()
	if f := b.fleet; f != nil {
		for c := range f.sent {
			f.sent[c] = b.win.LifetimeLocked(c)
		}
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
	b.openings = 0
	if s == ForcedOpen {
		b.openErr.Store(&OpenError{Name: b.s.Name, State: ForcedOpen})
	}
	b.enterLocked(now, s)
	w := b.word.Load() & sameMask
	b.mu.Unlock()
	if from != s {
		b.notify(transition{from: from, to: s, why: "operator", word: w})
	}
}

// notify logs t and calls the hook, outside the lock.
func (b *Breaker) notify(t transition) {
	if t.from == t.to {
		return
	}
	if l := b.s.Logger; l != nil {
		level, msg := slog.LevelInfo, "circuit breaker "+t.to.String()
		attrs := []slog.Attr{slog.String("breaker", b.s.Name), slog.String("from", t.from.String())}
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
		h(b.s.Name, t.from, t.to)
	}
	if b.fleet != nil && !t.remote && b.fleet.link != nil {
		b.publish(t)
	}
}
