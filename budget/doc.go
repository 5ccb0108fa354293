// Package budget bounds the extra load that retries put on a target, so
// that an outage is not made worse by every client retrying into it.
//
// A per-call attempt cap (a schedule such as Times(3)) is not enough: at
// three attempts per call, a dead target receives three times its normal
// load, and every layer that retries multiplies that again. A budget is
// per client and per target: it watches how the target is doing across
// all calls and stops retries — or, for adaptive throttling, sheds calls
// — when they would only add load.
//
// Three kinds, one interface (Budget):
//
//   - TokenBucket is gRPC's retry throttling (gRFC A6). Each failed
//     attempt costs a token, each success earns back TokenRatio (0.1), and
//     retries stop while half or fewer of MaxTokens (10) are left. It needs
//     no clock and reacts within five failures. Pick it by default.
//   - Ratio is the Google SRE book's per-client retry budget: retries are
//     at most Percent (10%) of calls over a sliding Window (10 s), plus a
//     floor of MinPerSecond (1) per second so a quiet client can retry.
//     Its bound holds whatever the failure pattern: load never exceeds
//     1.1× calls plus the floor.
//   - Adaptive is the SRE book's client-side adaptive throttling: it
//     refuses attempts, first ones included, with probability
//     (calls − K·accepts)/(calls + 8) over the last 2 minutes while the
//     target accepts fewer than one attempt in K, so a client whose target
//     rejects most calls stops sending most of them, and sends them all
//     again within a window of its recovery.
//     It is load shedding rather than a retry budget, and combines with
//     either of the others.
//
// A runner asks the budget before each call (Request), after each
// attempt tells it the attempt's verdict (Record), and asks again before
// each retry (AllowRetry). The runners of package retry make these calls
// when their options carry a budget; a refused retry ends the call with
// the last error and the reason "budget", a refused call fails with
// ErrThrottled. Used with a circuit breaker, the breaker is asked first: a
// call the breaker refuses never reaches the budget.
//
// Budgets count load, breakers count health: a Retryable outcome (HTTP
// 429, the target pushing back) costs a TokenBucket a token and is not an
// accept for Adaptive, though a breaker ignores it.
//
// Every budget is safe for concurrent use and cheap on the request path:
// atomics, no allocation, no lock and no clock read per call. Windows are
// counted as in package breaker: pending counts are folded into the
// window's buckets when something reads the clock anyway, or about once
// every 64 calls. A Registry keeps one budget per target, with a cap on
// the number of targets. Stats returns the counters a metrics exporter
// wants: calls, retries allowed and throttled, tokens.
package budget
