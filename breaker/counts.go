package breaker

// Counts is what a breaker's window holds, as Config.TripWhen sees it.
type Counts struct {
	// Calls is the number of counted calls in the window; Failures and
	// Slow are how many of them failed and were slow.
	Calls, Failures, Slow int
	// ConsecutiveFailures is the current streak of failures.
	ConsecutiveFailures int
}

// add adds d calls, failed and slow as said, to c's Calls, Failures and
// Slow.
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

// ring is a count-based window: the outcomes of the last len(slots)
// counted calls and their sums. The breaker's lock guards it.
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

func (r *ring) reset() { r.next, r.n, r.c = 0, 0, Counts{} }
