// Package repeat runs an operation again after it succeeds, on a schedule:
// polling, heartbeats, periodic refreshes.
//
// Repeat is the other half of package retry. Where retry asks the schedule
// after each failure and stops at the first success, Repeat asks it after
// each success and stops at the first failure:
//
//	// Every thirty seconds until something breaks.
//	n, err := repeat.Repeat(ctx, repeat.Options{}, schedule.Spaced{Every: 30 * time.Second}, checkHealth)
//
// It returns how many runs succeeded, so a caller can tell "the schedule
// ended" (err == nil) from "it failed on run n+1" (the operation's error,
// unchanged) from "it never ran once" (n == 0).
//
// Repeat takes its own Options: the capabilities it shares with the retry
// runners (retry.Caps: Clock, Random; zero value: the real ones),
// RunTimeout, which bounds each run, and an Observer (retry.Observer, the
// retry runners' one channel for logs, metrics and hooks), told before
// each wait of the runs so far and the wait. The context bounds the whole
// loop: a run that
// would start at or after its deadline is not waited for — Repeat returns
// at once with an error for which errors.Is(err, context.DeadlineExceeded)
// holds — and a cancellation during a wait returns the context's error
// promptly. A panic in the operation propagates.
package repeat
