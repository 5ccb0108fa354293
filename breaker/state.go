package breaker

import (
	"errors"
	"strconv"
	"time"
)

// State is a breaker's state. The first three are the usual gauge values:
// 0 closed, 1 half-open, 2 open.
type State uint8

// The states; operators' actions lead to the last three.
const (
	Closed      State = iota // calls go through and their outcomes are counted
	HalfOpen                 // a few probes go through, the rest are refused; the probes decide
	Open                     // every call is refused until the open duration has passed
	ForcedOpen               // every call is refused (ForceOpen)
	Disabled                 // every call goes through, nothing is counted (Disable)
	MetricsOnly              // every call goes through and is counted, nothing opens it (MetricsOnly)
)

var stateNames = [...]string{"closed", "half-open", "open", "forced-open", "disabled", "metrics-only"}

// String returns the state's lower-case name, such as "half-open".
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "state(" + strconv.Itoa(int(s)) + ")"
}

// The breaker's word holds its state, a generation that changes at every
// transition, the probes admitted while half-open and the armed bit, so
// that admission is one load and an outcome is matched to the generation
// that admitted its call by comparing words under sameMask. Armed sends
// successes down the locked path: one may trip a rule, or must be counted
// under the lock.
const (
	stateMask  = 1<<3 - 1
	probeShift = 3
	probeOne   = 1 << probeShift
	probeMask  = (1<<16 - 1) << probeShift
	armBit     = 1 << 19
	genOne     = 1 << 20
	sameMask   = ^uint64(probeMask | armBit) // the bits of a generation
	recorded   = armBit                      // a recorded Permit's word, which no admitted one has
)

// next returns the word of a new generation in state s.
func next(w uint64, s State) uint64 { return (w&^(genOne-1) + genOne) | uint64(s) }

func stateOf(w uint64) State { return State(w & stateMask) }

func probesOf(w uint64) int { return int(w & probeMask >> probeShift) }

// ErrOpen is what errors.Is finds in every refusal of a breaker. A runner
// must not retry through it.
var ErrOpen = errors.New("circuit open")

// OpenError is the error of a refused call; errors.Is(err, ErrOpen) is true
// for it. A breaker makes one, immutable, as it enters a refusing state and
// returns it for every call it refuses there, so refusing allocates nothing.
type OpenError struct {
	Name  string // the breaker's name
	State State  // Open, HalfOpen (every probe in flight) or ForcedOpen
	// Until is, on the breaker's clock, when an Open breaker lets the next
	// call through as a probe, or when a HalfOpen one half-opened; zero for
	// ForcedOpen.
	Until time.Time
	For   time.Duration // the length of this opening, if Open
}

// Error returns a message such as
// "breaker api.example.com:443: circuit open, an opening of 10s", with the
// whole opening's length: Remaining gives what is left of it.
func (e *OpenError) Error() string {
	sep := ""
	if e.Name != "" {
		sep = " "
	}
	switch e.State {
	case Open:
		return "breaker" + sep + e.Name + ": circuit open, an opening of " + e.For.String()
	case HalfOpen:
		return "breaker" + sep + e.Name + ": circuit half-open, probes in flight"
	}
	return "breaker" + sep + e.Name + ": circuit forced open"
}

// Is reports whether target is ErrOpen.
func (e *OpenError) Is(target error) bool { return target == ErrOpen }

// Remaining returns how long after now the breaker may let a call through
// (for an HTTP Retry-After, say): Until − now, at least zero, for Open;
// zero for HalfOpen, whose probes may end any moment; false for ForcedOpen,
// which waits for an operator.
func (e *OpenError) Remaining(now time.Time) (time.Duration, bool) {
	switch e.State {
	case Open:
		return max(e.Until.Sub(now), 0), true
	case HalfOpen:
		return 0, true
	}
	return 0, false
}
