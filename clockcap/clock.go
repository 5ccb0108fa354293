// Package clockcap provides the Clock capability: the only way the runners
// read the time or wait.
//
// A runner never calls time.Now or time.Sleep itself; it asks the Clock it
// was given. Real is the system clock. Virtual is a clock whose Sleep
// advances time at once and records how long it slept, so a test of a
// 30-second retry loop finishes in microseconds and can assert the exact
// timeline. Manual is a clock that only moves when the test advances it,
// for tests where other goroutines sleep concurrently.
package clockcap

import (
	"context"
	"time"
)

// Clock tells the time and waits.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Sleep waits for d, or until ctx is done, whichever comes first, and
	// returns ctx's error in the second case. A d of zero or less returns
	// at once with ctx.Err().
	Sleep(ctx context.Context, d time.Duration) error
}

// Real returns the system clock. It behaves under testing/synctest, whose
// bubbles fake time.Now and timers.
func Real() Clock { return realClock{} }

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
