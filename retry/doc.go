// Package retry runs an operation again when it fails, on a schedule.
//
// A schedule (package schedule) says when to try again and when to stop;
// this package drives one around an operation, with the clock and the
// random source passed in rather than taken from the environment:
//
//	policy := schedule.Intersect{A: schedule.Backoff(100*time.Millisecond, 30*time.Second), B: schedule.Times{N: 5}}
//	quote, err := retry.RetryWhile(ctx, retry.Options{}, policy, worthRetrying,
//		func(ctx context.Context) (Quote, error) { return fetch(ctx, url) })
//
// The first attempt is made once the schedule and the options pass a
// check that costs a few nanoseconds, unless the context is already done
// (then op is not called at all); an invalid schedule is an
// error before op runs. After an attempt fails, the runner
// asks worthRetrying about the error: an error that will not get better
// (a 404, a malformed request) comes back at once, unchanged. Otherwise it
// asks the schedule for the next delay, waits and tries again, until an
// attempt succeeds or the schedule stops; then it returns an *Error that
// wraps the last attempt's error and says how many attempts were made.
// Retry retries every error; RetryIf takes a classifier that returns a
// verdict.Verdict, for callers — circuit breakers, retry budgets, HTTP clients —
// that must tell a failing target from one that is merely busy.
//
// # Judging the whole outcome
//
// Do takes a Judge, which sees the result as well as the error and
// returns a Judgement: a verdict, an optional retry-after and a short
// reason label. A (503 response, nil) can be retried that way, and the
// responses the runner drops go to a discard function exactly once, so
// that their bodies are closed. AttemptOf tells op which attempt it is
// making and whether the schedule allows another.
//
// # Hedging
//
// Hedge answers slowness where the others answer failures: it starts
// another copy of a slow call at each delay of a schedule
// (spaced(10ms) & times(3): a second copy after 10ms, a third after 20ms)
// while no answer has come; the first answer the judge accepts wins and
// the other copies are canceled, their results discarded. Hedge only
// calls whose every copy may run: see docs/hedging.md.
//
// # Deadlines and cancellation
//
// The context bounds all attempts together. A retry whose wait would end
// at or after the context's deadline is not made: the runner returns at
// once instead of sleeping into the deadline, with an *Error for which
// errors.Is(err, context.DeadlineExceeded) holds. Cancellation during a
// wait returns promptly. Options.AttemptTimeout additionally bounds each
// attempt; the operation receives a context it should pass on.
//
// # Pushback
//
// A server may ask for a longer wait (HTTP Retry-After, gRPC pushback). An
// error that implements Pushback — After makes one from any error — makes
// the wait at least that long, capped by Options.MaxPushback and the
// deadline; a negative pushback stops the retries.
//
// # Capabilities and testing
//
// Options.Clock and Options.Random are the only ways the runner reads the
// time, waits and draws randomness. The zero Options uses the real ones. A
// test that passes clockcap.Virtual and randcap.Seeded runs a 30-second
// retry loop in microseconds and can assert every wait:
//
//	clock := clockcap.Virtual(time.Now())
//	_, err := retry.Retry(ctx, retry.Options{Caps: retry.Caps{Clock: clock, Random: randcap.Seeded(1)}}, policy, alwaysFails)
//	// clock.Sleeps() holds the four waits before attempts 2 to 5.
//
// # Cost
//
// A call whose first attempt succeeds reads no clock, draws no seed and
// allocates nothing — unless its schedule measures time from its start
// (Spaced, UpTo), which costs one clock read; so does Do's. The first
// failure costs two allocations for the whole call (the interpreter's node
// state, and one block for the run, the later attempts' context and the
// held result); a retry with no delay arms no timer and allocates nothing.
//
// Observability has one channel, Options.Observer: an Event for every
// attempt (with its verdict and duration), before each wait (Retrying),
// when the runner gives up (GaveUp) and when a call succeeds after retries
// (Recovered), each with the judgement's reason label and tagged with
// Options.Target. LogObserver writes them to a log/slog logger, the
// promrecur and otelrecur modules count them, ObserverFunc makes a hook of
// a function and Observers combines several. With none set, the runner
// reads no clock for it and allocates nothing.
package retry
