package clockcap

import (
	"context"
	"sync"
	"time"
)

// ManualClock is a Clock that moves only when Advance or Set is called.
// Sleepers block until the clock reaches their wake-up time or their
// context is done, so a test can drive goroutines that sleep concurrently.
// It is safe for concurrent use.
type ManualClock struct {
	mu       sync.Mutex
	now      time.Time
	sleepers []*sleeper
	changed  chan struct{} // closed and replaced when sleepers change
}

type sleeper struct {
	until time.Time
	wake  chan struct{}
}

// Manual returns a manual clock that reads start.
func Manual(start time.Time) *ManualClock {
	return &ManualClock{now: start, changed: make(chan struct{})}
}

// Now returns the clock's time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep blocks until the clock has been advanced by d or ctx is done.
func (c *ManualClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	c.mu.Lock()
	s := &sleeper{until: c.now.Add(d), wake: make(chan struct{})}
	c.sleepers = append(c.sleepers, s)
	c.notify()
	c.mu.Unlock()
	select {
	case <-s.wake:
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		c.remove(s)
		c.mu.Unlock()
		return ctx.Err()
	}
}

// Advance moves the clock forward by d and wakes the sleepers that are due.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.set(c.now.Add(d))
}

// Set moves the clock to t, which must not be before Now, and wakes the
// sleepers that are due.
func (c *ManualClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.now) {
		c.set(t)
	}
}

// Sleepers returns how many goroutines are sleeping on the clock.
func (c *ManualClock) Sleepers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.sleepers)
}

// WaitSleepers blocks until at least n goroutines sleep on the clock or ctx
// is done, so a test can advance the clock knowing who will wake.
func (c *ManualClock) WaitSleepers(ctx context.Context, n int) error {
	for {
		c.mu.Lock()
		if len(c.sleepers) >= n {
			c.mu.Unlock()
			return nil
		}
		ch := c.changed
		c.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (c *ManualClock) set(t time.Time) {
	c.now = t
	kept := c.sleepers[:0]
	for _, s := range c.sleepers {
		if !s.until.After(t) {
			close(s.wake)
		} else {
			kept = append(kept, s)
		}
	}
	clear(c.sleepers[len(kept):])
	c.sleepers = kept
	c.notify()
}

func (c *ManualClock) remove(s *sleeper) {
	for i, x := range c.sleepers {
		if x == s {
			c.sleepers = append(c.sleepers[:i], c.sleepers[i+1:]...)
			c.notify()
			return
		}
	}
}

func (c *ManualClock) notify() {
	close(c.changed)
	c.changed = make(chan struct{})
}
