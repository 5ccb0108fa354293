// Package verdict names what one attempt's outcome means, so that the
// runners that act on it and the breakers and budgets that keep score of a
// target agree on the words.
//
// A classifier turns an attempt's result into a Verdict. The runner acts
// on it: it tries again after Transient and Retryable and returns
// otherwise. A circuit breaker counts it as a measure of the target's
// health: Transient and Failure count against the target, Success counts
// for it, Retryable and Neutral count nothing. A retry budget counts it as
// a measure of load: see package budget.
//
//	HTTP 200                    Success
//	connection refused, 503     Transient  (retry; the target is failing)
//	429, REFUSED_STREAM         Retryable  (retry; the target is not failing)
//	500 from a non-idempotent   Failure    (return; the target is failing)
//	400, caller cancelled       Neutral    (return; nobody's health changed)
//
// A caller's own cancellation is Neutral: the target did nothing wrong.
//
// This package is a leaf: it imports nothing of this module, so the
// runners (package retry), the breaker and the budgets can all use it.
package verdict

import "strconv"

// Verdict is what one attempt's outcome means.
type Verdict uint8

const (
	// Success: the attempt worked. A nil error is always a Success; a
	// classifier may also call an error a Success (a live database
	// answering "unique violation" is healthy).
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

var names = [...]string{"success", "transient", "retryable", "failure", "neutral"}

// String returns the verdict's lower-case name, such as "transient".
func (v Verdict) String() string {
	if int(v) < len(names) {
		return names[v]
	}
	return "verdict(" + strconv.Itoa(int(v)) + ")"
}

// Retry reports whether a runner tries again after this verdict: true for
// Transient and Retryable. An unknown verdict does not retry.
func (v Verdict) Retry() bool { return v == Transient || v == Retryable }

// Failed reports whether the verdict counts as a failure of the target:
// true for Transient and Failure. An unknown verdict does not count.
func (v Verdict) Failed() bool { return v == Transient || v == Failure }
