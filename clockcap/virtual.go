package clockcap

import (
	"context"
	"slices"
	"sync"
	"time"
)

// VirtualClock is a Clock whose Sleep returns at once after moving the
// clock forward, and remembers every sleep. It is safe for concurrent use.
type VirtualClock struct {
	mu     sync.Mutex
	now    time.Time
	start  time.Time
	sleeps []time.Duration
}

// Virtual returns a virtual clock that reads start until something sleeps.
//
// Start it at time.Now() when a context deadline is involved, and take the
// deadline from the clock itself (clock.Now().Add(d)): Sleep compares the
// deadline with virtual time, but package context compares it with real
// time, so a deadline taken from a clock started in the past has expired
// before the first attempt.
func Virtual(start time.Time) *VirtualClock {
	return &VirtualClock{now: start, start: start}
}

// Now returns the virtual time.
func (c *VirtualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep moves the clock forward by d and records d. If ctx is already done
// it returns ctx's error without moving. If ctx has a deadline that d would
// pass, the clock moves to the deadline and Sleep returns
// context.DeadlineExceeded, as a real sleep would.
func (c *VirtualClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if dl, ok := ctx.Deadline(); ok && c.now.Add(d).After(dl) {
		if dl.After(c.now) {
			c.sleeps = append(c.sleeps, dl.Sub(c.now))
			c.now = dl
		}
		return context.DeadlineExceeded
	}
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	return nil
}

// Advance moves the clock forward by d without recording a sleep, as if
// work had taken that long.
func (c *VirtualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Sleeps returns the sleeps so far, in order.
func (c *VirtualClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.sleeps)
}

// Elapsed returns how far the clock has moved since it was made.
func (c *VirtualClock) Elapsed() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now.Sub(c.start)
}
