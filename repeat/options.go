package repeat

import (
	"time"

	"github.com/recur-go/recur/retry"
)

// Options are the capabilities and knobs of a Repeat. The zero value is
// ready to use: the real clock and random, no run timeout, no hook and no
// logging. One value may be shared by concurrent calls if its Clock,
// Random, AfterRun and Logger may.
type Options struct {
	// Caps are the clock (read and waited on), the random source (the
	// seed of the schedule's jitter) and the logger, which gets a debug
	// record before each wait.
	retry.Caps

	// RunTimeout, when positive, bounds each run: the operation's context
	// ends that long after the run starts, or at the caller's deadline if
	// that comes first. It uses the context package's timers, that is the
	// real clock (or a testing/synctest bubble's), whatever Clock is. Zero
	// means no timeout; negative is an error.
	RunTimeout time.Duration

	// AfterRun, if not nil, is called after each successful run that the
	// schedule follows with another, before the wait, with the number of
	// runs so far and the wait before the next one. It runs on the
	// caller's goroutine and must not block for long.
	AfterRun func(runs int, wait time.Duration)
}
