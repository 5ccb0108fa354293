package breaker

// Counts is what a breaker's window holds, as Config.TripWhen sees it.
type Counts struct {
	Calls, Failures, Slow int // the window's counted calls, those that failed and those that were slow
	ConsecutiveFailures   int // the current streak of failures
}

// add adds d calls, failed and slow as said.
func (c *Counts) add(failed, slow bool, d int) {
	c.Calls += d
	if failed {
		c.Failures += d
	}
	if slow {
		c.Slow += d
	}
}

// Outcome bits in a ring slot.
const (
	oFailed = 1 << iota
	oSlow
)

// ring is a count-based window, under the breaker's lock: the outcomes of
// the last len(slots) counted calls, and their sums.
type ring struct {
	slots   []uint8
	next, n int
	c       Counts // the sums; ConsecutiveFailures unused
}

func (r *ring) add(failed, slow bool) {
	if r.n == len(r.slots) {
		o := r.slots[r.next]
		r.c.add(o&oFailed != 0, o&oSlow != 0, -1)
	} else {
		r.n++
	}
	var o uint8
	if failed {
		o |= oFailed
	}
	if slow {
		o |= oSlow
	}
	r.slots[r.next] = o
	r.next = (r.next + 1) % len(r.slots)
	r.c.add(failed, slow, 1)
}

// probeTally keeps a half-open spell's probes, under the breaker's lock:
// the ticket of the probe out in each slot (0 when free; a slot is reused
// when its probe counted nothing, a ticket never), so that a Permit
// recorded twice counts once, and the outcomes counted so far.
type probeTally struct {
	tickets []uint32 // per slot
	issued  uint32
	c       Counts
}

// reset starts a new half-open spell for n probes.
func (t *probeTally) reset(n int) {
	if len(t.tickets) != n {
		t.tickets = make([]uint32, n)
	}
	clear(t.tickets)
	t.issued, t.c = 0, Counts{}
}

// take gives a free slot, which the caller knows of, a new ticket, and
// returns the slot's number + 1 and the ticket.
func (t *probeTally) take() (uint16, uint32) {
	for i, k := range t.tickets {
		if k == 0 {
			t.issued++
			t.tickets[i] = t.issued
			return uint16(i) + 1, t.issued
		}
	}
	return 0, 0
}

// give frees slot (a number from take) and reports whether it was out
// under ticket.
func (t *probeTally) give(slot uint16, ticket uint32) bool {
	if slot == 0 || int(slot) > len(t.tickets) || ticket == 0 || t.tickets[slot-1] != ticket {
		return false
	}
	t.tickets[slot-1] = 0
	return true
}

// Stats is a snapshot of a breaker's counters, for metrics.
type Stats struct {
	State    State  // the state now (see Breaker.State)
	Opened   uint64 // openings, reopenings after a failed probe included (ForceOpen is none)
	Rejected uint64 // calls Allow refused
	// Successes, Failures and Slow count the outcomes Record counted:
	// Success, Transient or Failure, and those of SlowCall or longer.
	Successes, Failures, Slow uint64
	// WindowCalls and WindowFailures are the current window's, which
	// starts empty at every transition.
	WindowCalls, WindowFailures uint64
	// Duplicates counts records of a recorded Permit, or of a copy of a
	// recorded probe's; they count nothing else.
	Duplicates uint64
}

// Stats returns the breaker's counters.
func (b *Breaker) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.win.FlushLocked(b.now())
	life, c := b.lifeLocked(), b.counts()
	s := Stats{State: b.State(), Rejected: b.rejected.Load(), Duplicates: b.dups,
		Successes: uint64(life[cCalls] - life[cFailures]), Failures: uint64(life[cFailures]), Slow: uint64(life[cSlow]),
		WindowCalls: uint64(c.Calls), WindowFailures: uint64(c.Failures)}
	if b.ep != nil {
		s.Opened = b.ep.opened
	}
	return s
}
