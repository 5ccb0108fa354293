package breaker

// Counts is what a breaker's window holds, as Config.TripWhen sees it.
type Counts struct {
	// Calls is the number of counted calls in the window; Failures and
	// Slow are how many of them failed and were slow.
	Calls, Failures, Slow int
	// ConsecutiveFailures is the current streak of failures.
	ConsecutiveFailures int
}

// Outcome bits in a ring slot.
const (
	oFailed = 1 << iota
	oSlow
)

// ring is a count-based window: the outcomes of the last len(slots)
// counted calls and their sums. The breaker's lock guards it.
type ring struct {
	slots                 []uint8
	next, n               int
	calls, failures, slow int
}

func (r *ring) add(failed, slow bool) {
	var o uint8
	if failed {
		o |= oFailed
	}
	if slow {
		o |= oSlow
	}
	if r.n == len(r.slots) {
		r.drop(r.slots[r.next])
	} else {
		r.n++
	}
	r.slots[r.next] = o
	r.next = (r.next + 1) % len(r.slots)
	r.calls++
	if failed {
		r.failures++
	}
	if slow {
		r.slow++
	}
}

func (r *ring) drop(o uint8) {
	r.calls--
	if o&oFailed != 0 {
		r.failures--
	}
	if o&oSlow != 0 {
		r.slow--
	}
}

func (r *ring) reset() { r.next, r.n, r.calls, r.failures, r.slow = 0, 0, 0, 0, 0 }
