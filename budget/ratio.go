package budget

import (
	"fmt"
	"math"
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
	// Clock reads the time; nil means clockcap.Real(). It is read on
	// every call of a quiet client and, on a busy one, about once every
	// 64 calls and every 16 retries.
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
//
// AllowRetry reads the clock once and mostly takes no lock: each update of
// the window works out how many retries it may still take, and AllowRetry
// takes one of them with a compare-and-swap. The window is updated by
// calls, about once every 64 on a busy client and on every call on a
// quiet one, by every 16th retry allowed, and by a retry check that finds
// the last update a bucket (Window/10) or more old; a retry that finds
// none left takes the lock only when the calls since the last update
// allow one more, and counts them. So retries are never refused for want
// of an update, and are judged by a window at most a bucket old: calls
// that left the window buy no retries, except those of the last batch not
// yet counted (at most 64 calls, so Percent of 64 retries), which are
// spread over the time since the previous update.
type Ratio struct {
	win   window.Window // counters: rCalls, rRetries
	clock clockcap.Clock
	epoch time.Time
	pct   int64
	floor int64 // retries always allowed in a window
	// calls is the window's calls as of the last update or credit: once
	// no retry is left, a retry takes the lock only if the calls since
	// then allow one more.
	calls atomic.Int64
	// updated is the time of the last update, read by every retry check.
	updated atomic.Int64
	// left is how many more retries the window may take: what the last
	// update gave (negative: owed), plus what calls since earned, less
	// those allowed since; updating while an update moves those into the
	// window.
	left      atomic.Int64
	throttled atomic.Uint64 // for Stats

	mu    sync.Mutex
	given int64 // left as the last update set it, plus credits
}

const (
	rCalls = iota
	rRetries
)

// updating is left's value while an update is under way.
const updating = math.MinInt64

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
	r.win.Init(int64(c.Window)/window.Buckets, maxBatch, false)
	r.given = r.floor
	r.left.Store(r.given)
	return r, nil
}

// Request counts the call and allows it.
func (r *Ratio) Request() bool {
	if r.win.Add(rCalls, 1) && r.mu.TryLock() {
		r.updateLocked(r.now())
		r.mu.Unlock()
	}
	return true
}

// AllowRetry allows a retry, and counts it, if the window's retries,
// this one included, stay within Percent percent of its calls plus the
// floor.
func (r *Ratio) AllowRetry() bool {
	// A retry follows a failed call, so one clock read here is cheap next
	// to it, and it keeps the window honest: a window last updated a
	// bucket or more ago is moved to now first, so calls that have left it
	// buy no retries (a burst a window ago must not pay for an outage's
	// first retries, as Finagle's RetryBudget expires its deposits).
	if now := r.now(); now-r.updated.Load() >= r.win.Width() {
		r.mu.Lock()
		if now-r.updated.Load() >= r.win.Width() {
			r.updateLocked(now)
		}
		r.mu.Unlock()
	}
	exact := r.win.Exact() // update the window for every retry (tests)
	for !exact {
		l := r.left.Load()
		switch {
		case l > 0:
			if !r.left.CompareAndSwap(l, l-1) {
				continue
			}
			if l%16 == 0 && r.mu.TryLock() { // every 16th: update
				r.updateLocked(r.now())
				r.mu.Unlock()
			}
			return true
		case l != updating && l+r.credit() <= 0:
			r.throttled.Add(1)
			return false
		}
		break // calls since the last update allow one, or it is under way
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if exact {
		r.updateLocked(r.now())
	} else {
		r.creditLocked()
	}
	if r.take() > 0 {
		if exact { // count it at its time, not at the next update's
			r.given--
			r.win.AddLocked(rRetries, 1)
		}
		return true
	}
	r.throttled.Add(1)
	return false
}

// take takes one of the retries left, if there is one, and returns how
// many there were before it.
func (r *Ratio) take() int64 {
	for {
		l := r.left.Load()
		if l <= 0 || r.left.CompareAndSwap(l, l-1) {
			return l
		}
	}
}

// credit returns how many more retries the calls since the last update
// allow.
func (r *Ratio) credit() int64 { return r.creditAt(r.win.Sum(rCalls)) }

// creditAt returns how many more retries the window's calls, when they
// number calls, allow beyond those at the last update or credit.
func (r *Ratio) creditAt(calls int64) int64 {
	return calls*r.pct/100 - r.calls.Load()*r.pct/100
}

// creditLocked adds the retries that the calls since the last update
// allow, without reading the clock. Until the next update it counts the
// calls that have left the window since the last one, so it may allow a
// few retries too many; the next update counts them against the retries
// left (which may then be negative: a debt that later calls pay first).
func (r *Ratio) creditLocked() {
	calls := r.win.Sum(rCalls) // summed once: a call counted meanwhile is not lost
	more := r.creditAt(calls)
	r.calls.Store(calls)
	r.given += more
	r.left.Add(more)
}

// updateLocked updates the window to time now, moves the retries allowed
// since the last update into its newest bucket, and works out how many
// more retries it may take: a negative number when it holds more than it
// should.
func (r *Ratio) updateLocked(now int64) {
	taken := r.given - r.left.Swap(updating)
	r.win.FlushLocked(now)
	r.updated.Store(now)
	r.win.AddLocked(rRetries, taken)
	// As flushed: calls made since are credited later, as calls since
	// this update; retries are never pending.
	calls := r.win.Flushed(rCalls)
	r.calls.Store(calls)
	r.given = calls*r.pct/100 + r.floor - r.win.Flushed(rRetries)
	r.left.Store(r.given)
}

// Record does nothing: a Ratio counts calls and retries, not outcomes.
func (r *Ratio) Record(verdict.Verdict) {}

// Stats returns the budget's counters.
func (r *Ratio) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Stats{
		Requests:  uint64(r.win.LifetimeLocked(rCalls)),
		Retries:   uint64(r.win.LifetimeLocked(rRetries) + r.given - r.left.Load()),
		Throttled: r.throttled.Load(),
	}
}

func (r *Ratio) now() int64 { return max(int64(r.clock.Now().Sub(r.epoch)), 0) }
