package budget

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/internal/window"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/verdict"
)

// Defaults of AdaptiveConfig, from the Google SRE book (chapter 21).
const (
	DefaultK              = 2.0
	DefaultAdaptiveWindow = 2 * time.Minute
)

// AdaptiveConfig configures an Adaptive.
type AdaptiveConfig struct {
	// K is how many calls per accepted one the client may send before it
	// starts refusing some locally. Lower is more aggressive; the book
	// prefers 2. Zero means 2; it must be at least 1.
	K float64
	// Window is how far back calls and accepts are counted, as 10
	// buckets of Window/10. Zero means 2 minutes; less than 10 ns is an
	// error.
	Window time.Duration
	// Clock reads the time; nil means clockcap.Real(). It is read while
	// the throttle refuses calls and, on a busy client, about once every
	// 64 calls.
	Clock clockcap.Clock
	// Random gives the seed of the throttle's coin flips; nil means
	// randcap.Real(). randcap.Seeded makes them repeatable.
	Random randcap.Random
}

func (AdaptiveConfig) config() {}

// New returns NewAdaptive(c) as a Budget.
func (c AdaptiveConfig) New() (Budget, error) {
	a, err := NewAdaptive(c)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// Adaptive is the SRE book's client-side adaptive throttling. Over a
// sliding window it counts the attempts the target answered, those it
// accepted, and those the throttle refused, and refuses each new attempt,
// first or retry, with probability
//
//	max(0, (calls − K·accepts) / (calls + 8))
//
// where calls is answered plus refused attempts, as the book counts them,
// but only while the target's answers alone show it accepting less than
// one attempt in K (answered > K·accepts); otherwise it refuses nothing.
//
// While the target accepts at least one attempt in K, nothing is refused
// and the throttle costs a few atomic loads per attempt. When it stops
// accepting, the client sheds load before it reaches the wire, and still
// lets a trickle through, whose accepts bring it back as the target
// recovers.
//
// The 8 is grpc-go's RequestsPadding (its RLS adaptive throttler): it keeps
// the first few failures from refusing nearly every call, as the book's
// "+ 1" does (4 failures: 4/12 instead of 4/5). The condition on answered
// attempts is what lets the throttle recover: refused attempts count as
// calls the target did not accept, so without it the throttle's own
// refusals keep the probability up. A target that accepts exactly one
// attempt in K makes every refusal rate a fixed point, and one that has
// recovered is let back in only by doubling the trickle each window.
// With it, the throttle lets calls through again as soon as the answers
// in the window, the failures that started the refusing included, show
// the target accepting its share: within one window of its recovery.
//
// An attempt is counted when Record reports its outcome, or at once if
// the throttle refuses it, so attempts in flight do not count: a client
// that starts many calls at once is not throttled before any answer has
// arrived. Record counts Success and Neutral as accepted (a bad request or
// the caller's cancellation is not the target refusing); Transient,
// Retryable and Failure are not.
//
// The throttle first judges by its window as of its last update, without
// reading the clock; only when that says to refuse does it read the clock
// and judge again by the window as of now.
type Adaptive struct {
	win   window.Window // counters: aAccepts, aOthers, aRefused
	k     float64
	seed  uint64
	clock clockcap.Clock
	epoch time.Time

	requests, refused, retries, throttled atomic.Uint64 // for Stats

	mu    sync.Mutex
	draws atomic.Uint64

	coin func() float64 // replaces uniform in tests; nil otherwise
}

const (
	aAccepts = iota // calls the target accepted
	aOthers         // calls it answered but did not accept
	aRefused        // calls the throttle refused
)

// NewAdaptive returns an Adaptive, or an error that names the bad
// field of c.
func NewAdaptive(c AdaptiveConfig) (*Adaptive, error) {
	switch {
	case c.K == 0:
		c.K = DefaultK
	case !(c.K >= 1) || math.IsInf(c.K, 1):
		return nil, fmt.Errorf("budget: AdaptiveConfig.K = %v is not a number from 1 up", c.K)
	}
	switch {
	case c.Window == 0:
		c.Window = DefaultAdaptiveWindow
	case c.Window < 10:
		return nil, fmt.Errorf("budget: AdaptiveConfig.Window = %v is shorter than 10ns", c.Window)
	}
	if c.Clock == nil {
		c.Clock = clockcap.Real()
	}
	if c.Random == nil {
		c.Random = randcap.Real()
	}
	a := &Adaptive{k: c.K, seed: c.Random.Seed(), clock: c.Clock, epoch: c.Clock.Now()}
	a.win.Init(int64(c.Window)/window.Buckets, maxBatch, false)
	return a, nil
}

// Request refuses a call with the throttle's probability.
func (a *Adaptive) Request() bool {
	a.requests.Add(1)
	if a.admit() {
		return true
	}
	a.refused.Add(1)
	return false
}

// AllowRetry refuses a retry with the throttle's probability.
func (a *Adaptive) AllowRetry() bool {
	if a.admit() {
		a.retries.Add(1)
		return true
	}
	a.throttled.Add(1)
	return false
}

// admit decides whether to let an attempt through, and counts it as a
// call if not.
func (a *Adaptive) admit() bool {
	// While answered ≤ K·accepts nothing is refused: no lock, no clock, and
	// only counters that change at flushes are read. They may be a little
	// stale, which only matters once they say "refuse", so that is
	// checked again on fresh sums.
	accepts, others := a.win.Flushed(aAccepts), a.win.Flushed(aOthers)
	if float64(accepts+others) <= a.k*float64(accepts) {
		return true
	}
	now := a.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.win.FlushLocked(now)
	if p := a.probabilityLocked(); p > 0 && a.uniform() < p {
		a.win.AddLocked(aRefused, 1)
		return false
	}
	return true
}

// uniform returns the next of the throttle's random numbers in [0, 1):
// SplitMix64 of the seed and a draw counter, so a seeded throttle makes
// the same decisions for the same calls.
func (a *Adaptive) uniform() float64 {
	if a.coin != nil {
		return a.coin()
	}
	z := a.seed + a.draws.Add(1)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11) / (1 << 53)
}

// Record counts an attempt as a call, and as accepted if v is Success or
// Neutral.
func (a *Adaptive) Record(v verdict.Verdict) {
	c := aOthers
	if v == verdict.Success || v == verdict.Neutral {
		c = aAccepts
	}
	if a.win.Add(c, 1) && a.mu.TryLock() {
		a.win.FlushLocked(a.now())
		a.mu.Unlock()
	}
}

// Stats returns the throttle's counters.
func (a *Adaptive) Stats() Stats {
	return Stats{
		Requests:  a.requests.Load(),
		Refused:   a.refused.Load(),
		Retries:   a.retries.Load(),
		Throttled: a.throttled.Load(),
	}
}

// Probability returns the chance that the throttle refuses the next call
// now.
func (a *Adaptive) Probability() float64 {
	now := a.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.win.FlushLocked(now)
	return a.probabilityLocked()
}

// probabilityLocked returns the chance of refusing an attempt, by the
// window as it is.
func (a *Adaptive) probabilityLocked() float64 {
	acc := float64(a.win.Flushed(aAccepts)) // the caller has just flushed
	sent := acc + float64(a.win.Flushed(aOthers))
	if sent <= a.k*acc {
		return 0
	}
	calls := sent + float64(a.win.Flushed(aRefused))
	return (calls - a.k*acc) / (calls + padding)
}

func (a *Adaptive) now() int64 { return max(int64(a.clock.Now().Sub(a.epoch)), 0) }

const padding = 8
