package budget

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/internal/window"
	"github.com/recur-go/recur/verdict"
)

// Defaults of RatioConfig, from the Google SRE book (chapter 22).
const (
	DefaultPercent      = 10
	DefaultMinPerSecond = 1
	DefaultRatioWindow  = 10 * time.Second
	// MaxFloor caps the retries MinPerSecond allows in one window, so
	// that no MinPerSecond and Window overflow the budget's counts: it
	// is far more than any window holds, so a floor clamped to it still
	// allows every retry.
	MaxFloor = 1 << 50
)

// RatioConfig configures a Ratio budget.
type RatioConfig struct {
	// Percent is how many retries the window may hold per hundred calls.
	// Zero means 10; it must be from 1 to 1000.
	Percent int
	// MinPerSecond is a floor: the window may always hold MinPerSecond
	// retries per second of its length, so a client that makes few calls
	// can still retry now and then. Zero means 1; a negative value means
	// no floor; a floor too large to count is clamped to MaxFloor.
	MinPerSecond int
	// Window is how far back calls and retries are counted, as 10
	// buckets of Window/10. Zero means 10 s; less than 10 ns is an error.
	Window time.Duration
	// Clock reads the time; nil means clockcap.Real(). It is read when a
	// retry asks and, on a busy client, about once every 64 calls.
	Clock clockcap.Clock
}

func (RatioConfig) config() {}

// New returns NewRatio(c) as a Budget.
func (c RatioConfig) New() (Budget, error) {
	r, err := NewRatio(c)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Ratio is the SRE book's per-client retry budget: over a sliding window,
// retries may be at most Percent percent of calls, plus a small floor of
// MinPerSecond per second. With the defaults a client whose target fails
// completely adds at most 10% to its load (1.1× instead of the 3× of
// three attempts per call), and a client that makes one call a minute can
// still retry it.
//
// A Ratio counts load, not health: Record does nothing, and a retry is
// counted when AllowRetry allows it. It never refuses a first attempt.
type Ratio struct {
	win   window.Window // counters: rCalls, rRetries
	clock clockcap.Clock
	epoch time.Time
	pct   int64
	floor int64 // retries always allowed in a window

	mu        sync.Mutex
	throttled atomic.Uint64
}

const (
	rCalls = iota
	rRetries
)

// NewRatio returns a Ratio budget, or an error that names the bad field of
// c.
func NewRatio(c RatioConfig) (*Ratio, error) {
	switch {
	case c.Percent == 0:
		c.Percent = DefaultPercent
	case c.Percent < 1 || c.Percent > 1000:
		return nil, fmt.Errorf("budget: RatioConfig.Percent = %d is not from 1 to 1000", c.Percent)
	}
	switch {
	case c.MinPerSecond == 0:
		c.MinPerSecond = DefaultMinPerSecond
	case c.MinPerSecond < 0:
		c.MinPerSecond = 0
	}
	switch {
	case c.Window == 0:
		c.Window = DefaultRatioWindow
	case c.Window < 10:
		return nil, fmt.Errorf("budget: RatioConfig.Window = %v is shorter than 10ns", c.Window)
	}
	if c.Clock == nil {
		c.Clock = clockcap.Real()
	}
	r := &Ratio{clock: c.Clock, epoch: c.Clock.Now(), pct: int64(c.Percent)}
	r.floor = int64(min(float64(c.MinPerSecond)*c.Window.Seconds(), MaxFloor))
	r.win.Init(int64(c.Window)/window.Buckets, false)
	return r, nil
}

// Request counts the call and allows it.
func (r *Ratio) Request() bool {
	if r.win.Add(rCalls, 1) && r.mu.TryLock() {
		r.win.FlushLocked(r.now())
		r.mu.Unlock()
	}
	return true
}

// AllowRetry allows a retry, and counts it, if the window's retries,
// this one included, stay within Percent percent of its calls plus the
// floor.
func (r *Ratio) AllowRetry() bool {
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.win.FlushLocked(now)
	if (r.win.Sum(rRetries)+1)*100 <= r.win.Sum(rCalls)*r.pct+r.floor*100 {
		r.win.AddLocked(rRetries, 1)
		return true
	}
	r.throttled.Add(1)
	return false
}

// Record does nothing: a Ratio counts calls and retries, not outcomes.
func (r *Ratio) Record(verdict.Verdict) {}

// Stats returns the budget's counters.
func (r *Ratio) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Stats{
		Requests:  uint64(r.win.LifetimeLocked(rCalls)),
		Retries:   uint64(r.win.LifetimeLocked(rRetries)),
		Throttled: r.throttled.Load(),
	}
}

func (r *Ratio) now() int64 { return max(int64(r.clock.Now().Sub(r.epoch)), 0) }
