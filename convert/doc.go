// Package convert turns the retry configurations teams already have into
// recur schedules, and back: Temporal's RetryPolicy, Resilience4j's
// Spring Boot YAML, Envoy's route retry_policy, Polly v8's
// RetryStrategyOptions and a gRPC service config's retryPolicy (through
// package grpcconfig).
//
// Each From function reads one format and returns, for each policy the
// document holds, the schedule that makes the same attempts at the same
// delays, counting as that project counts (Resilience4j's maxAttempts and
// Temporal's maximumAttempts include the first call; Envoy's num_retries
// and Polly's MaxRetryAttempts count the retries only) and with its
// defaults for what the document leaves out:
//
//	r, err := convert.FromTemporal([]byte(`{"initialInterval": "1s", "maximumAttempts": 5}`))
//	// r.Schedule: Intersect(Exponential(1s, 200%, 1m40s), Times(5))
//
// What a format can say and a schedule cannot is an error that names the
// field and wraps ErrNoEquivalent: a Resilience4j multiplier below 1, a
// custom intervalBiFunction. Where the peer's own arithmetic rounds
// differently (Resilience4j counts whole milliseconds, Temporal takes a
// floating-point power, Envoy draws its jitter in whole milliseconds),
// the schedule is the closest one and Result.Notes says by how much it
// differs: the difference is computed, never silent. The fields that are
// not about when to retry (Temporal's nonRetryableErrorTypes, Envoy's
// retry_on and per_try_timeout) are returned in Result.Retained, with
// where recur takes each.
//
// Each To function writes a schedule in a format, and refuses, with an
// error wrapping ErrNoEquivalent, a schedule whose waits that format would
// not reproduce exactly. FromX(ToX(s)) is s again.
//
// Input is bounded: at most MaxInput bytes, nested at most MaxDepth
// levels, and no more values than package yamlguard allows. Every error
// about a field is a *FieldError with the field's path and line.
// docs/convert.md gives each format's mapping and what is refused.
package convert
