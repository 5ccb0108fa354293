package breaker

// Stats is a snapshot of a breaker's counters, for metrics.
type Stats struct {
	// State is the state now (see Breaker.State).
	State State
	// Opened counts openings, re-openings after a failed probe included;
	// operator actions are not counted.
	Opened uint64
	// Rejected counts calls Allow refused.
	Rejected uint64
	// Successes, Failures and Slow count the outcomes Record counted:
	// Success, and Transient or Failure; Slow counts calls of either kind
	// that took SlowCall or longer.
	Successes, Failures, Slow uint64
	// WindowCalls and WindowFailures are the calls and failures in the
	// current window, which the failure-rate rule judges. The window
	// starts empty at every transition.
	WindowCalls, WindowFailures uint64
	// Duplicates counts Records of a Permit that had already been
	// recorded, and of copies of a recorded probe's Permit; they count
	// nothing else.
	Duplicates uint64
}

// Stats returns the breaker's counters.
func (b *Breaker) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.win.FlushLocked(b.now())
	calls := b.win.LifetimeLocked(cCalls)
	fails := b.win.LifetimeLocked(cFailures)
	c := b.counts()
	var opened uint64
	if b.ep != nil {
		opened = b.ep.opened
	}
	return Stats{
		State:          b.State(),
		Opened:         opened,
		Rejected:       b.rejected.Load(),
		Successes:      uint64(calls - fails),
		Failures:       uint64(fails),
		Slow:           uint64(b.win.LifetimeLocked(cSlow)),
		WindowCalls:    uint64(c.Calls),
		WindowFailures: uint64(c.Failures),
		Duplicates:     b.dups,
	}
}
