package repeat

import (
	"time"

	"github.com/recur-go/recur/retry"
)

// Options are the capabilities and knobs of a Repeat. The zero value is
// ready to use: the real clock and random, no run timeout, no observer.
// One value may be shared by concurrent calls if its Clock, Random and
// Observer may.
type Options struct {
	// Caps are the clock (read and waited on) and the random source (the
	// seed of the schedule's jitter).
	retry.Caps

	// RunTimeout, when positive, bounds each run: the operation's context
	// ends that long after the run starts, or at the caller's deadline if
	// that comes first. It uses the context package's timers, that is the
	// real clock (or a testing/synctest bubble's), whatever Clock is. Zero
	// means no timeout; negative is an error.
	RunTimeout time.Duration

	// Observer, if not nil, receives a retry.Event of kind retry.Retrying
	// after each successful run that the schedule follows with another,
	// before the wait: its Attempt is the number of runs so far and its
	// Delay the wait before the next one. It is called on the caller's
	// goroutine and must not block for long. retry.LogObserver logs it
	// at debug level; a retry.ObserverFunc makes a hook of a function.
	Observer retry.Observer
}
