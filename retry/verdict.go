package retry

import "strconv"

// Verdict is what one attempt's outcome means, for the runner and for
// whatever keeps score of the target's health. The runner acts on it: it
// tries again after Transient and Retryable and returns otherwise. A
// circuit breaker or a retry budget records it: Transient and Failure count
// against the target, Success counts for it, and Retryable and Neutral
// count nothing.
type Verdict uint8

const (
	// Success: the attempt worked. A nil error is always a Success; a
	// classifier may also call an error a Success (a live database
	// answering "unique violation" is healthy), and the runner then
	// returns that error unchanged.
	Success Verdict = iota
	// Transient: the target failed in a way that may pass; try again.
	// Counts as a failure of the target.
	Transient
	// Retryable: try again, but the target is not failing — it was busy
	// or provably did not process the request (HTTP 429, REFUSED_STREAM).
	Retryable
	// Failure: the target failed and trying again will not help; return
	// the error. Counts as a failure of the target.
	Failure
	// Neutral: return the error and count nothing — a bad request, a
	// caller's own cancellation, a local resource limit.
	Neutral
)

var verdictNames = [...]string{"success", "transient", "retryable", "failure", "neutral"}

// String returns the verdict's lower-case name, such as "transient".
func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return "verdict(" + strconv.Itoa(int(v)) + ")"
}

// Retry reports whether the runner tries again after this verdict: true
// for Transient and Retryable. An unknown verdict does not retry.
func (v Verdict) Retry() bool { return v == Transient || v == Retryable }

// Failed reports whether the verdict counts as a failure of the target:
// true for Transient and Failure.
func (v Verdict) Failed() bool { return v == Transient || v == Failure }
