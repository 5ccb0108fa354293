package breaker

import "strconv"

// State is a breaker's state. The numbers of the first three are the
// usual gauge values: 0 closed, 1 half-open, 2 open.
type State uint8

const (
	// Closed: calls go through and their outcomes are counted.
	Closed State = iota
	// HalfOpen: a few probe calls go through; the rest are refused at
	// once. The probes' outcomes decide between Closed and Open.
	HalfOpen
	// Open: every call is refused at once until the open duration has
	// passed; the next call then half-opens the breaker.
	Open
	// ForcedOpen: an operator opened the breaker (ForceOpen); every call
	// is refused until Reset or Disable.
	ForcedOpen
	// Disabled: an operator turned the breaker off (Disable); every call
	// goes through and nothing is counted, as in Resilience4j's DISABLED.
	Disabled
	// MetricsOnly: an operator asked the breaker to watch only
	// (MetricsOnly); every call goes through and outcomes are counted in
	// Stats, but nothing opens it, as in Resilience4j's METRICS_ONLY.
	MetricsOnly
)

var stateNames = [...]string{"closed", "half-open", "open", "forced-open", "disabled", "metrics-only"}

// String returns the state's lower-case name, such as "half-open".
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "state(" + strconv.Itoa(int(s)) + ")"
}

// The breaker keeps its state, a generation number that changes at every
// transition, the number of probes admitted while half-open and the armed
// bit in one atomic word, so that admission is one load, and an outcome is
// matched to the state that admitted its call by comparing words with the
// probes and the armed bit masked. Armed means that a success may trip a
// rule (or must be counted under the lock), so successes take the locked
// path; it costs the closed path nothing to test.
const (
	stateMask  = 1<<3 - 1
	probeShift = 3
	probeOne   = 1 << probeShift
	probeMask  = (1<<16 - 1) << probeShift
	armBit     = 1 << 19
	genOne     = 1 << 20
	// sameMask keeps the bits that identify a generation.
	sameMask = ^uint64(probeMask | armBit)
	// recorded is the word of a Permit that Record has seen: it has the
	// armed bit, which sameMask clears from every admitted Permit.
	recorded = armBit
)

// next returns the word of a new generation in state s.
func next(w uint64, s State) uint64 { return (w&^(genOne-1) + genOne) | uint64(s) }

func stateOf(w uint64) State { return State(w & stateMask) }

func probesOf(w uint64) int { return int(w & probeMask >> probeShift) }
