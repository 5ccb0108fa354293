package breaker

// probeTally keeps a half-open breaker's probes: which slots are out (so
// that a Permit recorded twice is caught, not counted twice) and the
// outcomes counted so far. The breaker's lock guards it.
//
// A slot is reused when its probe's outcome counted nothing, so each
// admission also gets a ticket, never reused within a half-open spell:
// a Permit is out only if its slot is out under its ticket.
type probeTally struct {
	out                   [(MaxHalfOpenProbes + 63) / 64]uint64
	tickets               []uint32 // per slot, the ticket of the probe in it
	issued                uint32
	calls, failures, slow int
}

// reset starts a new half-open spell for n probes.
func (t *probeTally) reset(n int) {
	tickets := t.tickets
	if len(tickets) != n {
		tickets = make([]uint32, n)
	}
	*t = probeTally{tickets: tickets}
}

// take marks a free slot as out and returns its number + 1 and its
// ticket. The caller has checked that fewer than len(t.tickets) are out.
func (t *probeTally) take() (uint16, uint32) {
	for i, word := range t.out {
		if word != ^uint64(0) {
			bit := 0
			for word&(1<<bit) != 0 {
				bit++
			}
			slot := i*64 + bit
			t.out[i] |= 1 << bit
			t.issued++
			t.tickets[slot] = t.issued
			return uint16(slot) + 1, t.issued
		}
	}
	return 0, 0
}

// give marks slot (a number from take) free again and reports whether it
// was out under ticket.
func (t *probeTally) give(slot uint16, ticket uint32) bool {
	if slot == 0 || int(slot) > len(t.tickets) {
		return false
	}
	i, bit := int(slot-1)/64, (slot-1)%64
	if t.out[i]&(1<<bit) == 0 || t.tickets[slot-1] != ticket {
		return false
	}
	t.out[i] &^= 1 << bit
	return true
}

// record counts a probe's outcome and returns the probes counted so far.
func (t *probeTally) record(failed, slow bool) int {
	t.calls++
	if failed {
		t.failures++
	}
	if slow {
		t.slow++
	}
	return t.calls
}

// counts returns the probes' outcomes counted so far.
func (t *probeTally) counts() Counts {
	return Counts{Calls: t.calls, Failures: t.failures, Slow: t.slow}
}
