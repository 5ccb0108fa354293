package breaker

// probeTally keeps a half-open breaker's probes: which slots are out (so
// that a Permit recorded twice is caught, not counted twice) and the
// outcomes counted so far. The breaker's lock guards it.
//
// A slot is reused when its probe's outcome counted nothing, so each
// admission gets a ticket, never reused within a half-open spell: a slot
// holds the ticket of the probe out in it, or 0 when it is free.
type probeTally struct {
	tickets []uint32 // per slot
	issued  uint32
	c       Counts // the outcomes counted so far
}

// reset starts a new half-open spell for n probes.
func (t *probeTally) reset(n int) {
	if len(t.tickets) != n {
		t.tickets = make([]uint32, n)
	}
	clear(t.tickets)
	t.issued, t.c = 0, Counts{}
}

// take gives a free slot a new ticket and returns the slot's number + 1
// and the ticket. The caller has checked that a slot is free.
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

// record counts a probe's outcome and returns the probes' counts so far.
func (t *probeTally) record(failed, slow bool) Counts {
	t.c.add(failed, slow, 1)
	return t.c
}

// counts returns the probes' outcomes counted so far.
func (t *probeTally) counts() Counts { return t.c }
