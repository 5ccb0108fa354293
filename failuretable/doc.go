// Package failuretable holds one test, TestFailureTable, which walks the
// table of docs/failures.md and checks every cell against the classifier of
// the adapter its column names: what each adapter retries and what counts
// against its circuit breaker. It is a module of its own so that it can
// import every adapter without any of them importing the others.
package failuretable
