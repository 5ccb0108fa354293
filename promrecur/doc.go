// Package promrecur exports recur's calls, retries, circuit breakers and
// retry budgets as Prometheus series, through client_golang.
//
// One Metrics describes one client (the client label): New registers it
// on the caller's prometheus.Registerer, never on the global one unless
// that is the Registerer passed. The Metrics is the retry.Observer of the
// client's runners (retry.Options.Observer, also in the Options of every
// adapter's Config), which feeds the runner series as the calls run:
//
//	recur_calls_total{client,target}                calls: first attempts, and calls refused before theirs
//	recur_attempts_total{client,target,verdict}     attempts by verdict: success, transient, retryable, failure, neutral
//	recur_attempt_duration_seconds{client,target}   histogram of the attempts' durations
//	recur_retries_total{client,target,reason}       retries, by the failed attempt's reason label
//	recur_retries_throttled_total{client,target}    retries the retry budget refused
//	recur_giveups_total{client,target,reason}       give-ups: exhausted, deadline, canceled, pushback, open, budget
//	recur_recoveries_total{client,target}           calls that succeeded after a retry
//	recur_hedges_total{client,target}               hedged copies started after the first (retry.Hedge)
//	recur_hedges_won_total{client,target}           hedged calls a copy after the first won
//	recur_hedges_canceled_total{client,target}      copies canceled in flight when another answered
//
// The hedge series appear on a target's first hedge. Against calls, they
// say what hedging costs and buys: recur_hedges_total over
// recur_calls_total is the extra load (about 5% for a hedge at the p95
// latency), recur_hedges_won_total over recur_hedges_total how often a
// copy was worth sending.
//
// The breaker and budget series are read at scrape time from the Stats of
// the breakers and budgets in Config.Breaker and Config.Budget, and of
// those added with AddBreaker and AddBudget, so they cost the calls
// nothing:
//
//	recur_breaker_state{client,target}              0 closed, 1 half-open, 2 open
//	recur_breaker_opened_total{client,target}       openings, re-openings after a failed probe included
//	recur_breaker_rejected_total{client,target}     calls the breaker refused
//	recur_budget_tokens{client,target}              tokens left in a token bucket budget
//
// An operator's breaker.ForcedOpen reports 2, like Open; Disabled and
// MetricsOnly report 0, since they let every call through.
//
// # Labels
//
// target is retry.Options.Target, or scheme://host:port for httpretry;
// calls made without a target have target="". Every label value is
// folded before it is counted: bytes that are not UTF-8 are shown as
// U+FFFD, and a value longer than 128 bytes is cut to its first 110
// bytes or fewer, "~" and 16 hex digits of a hash of the whole value, so
// a caller who picks the target (a webhook's URL) cannot make a scrape
// larger by making targets longer. Targets that fold to the same value
// share its series. Each client has at most
// Config.MaxTargets (256 by default) distinct target values per series;
// the targets first seen past the cap are all reported under
// target="(other)" (Overflow), which is also where a breaker.Registry or
// budget.Registry past its own cap puts its shared entry. So the target
// label of a client never takes more than MaxTargets+1 values, whatever
// the calls do. A target keeps its own series once it has them. When
// several breakers are folded into one label, their counters are added
// and the state is the worst of theirs; folded token buckets report the
// fewest tokens.
//
// reason on recur_retries_total is the reason label of the failed
// attempt's judgement (see retry.Judgement): httpretry's "http-503",
// "dial", "connection" and the others; Unlabeled when the judgement gave
// none; Overflow past MaxReasons distinct reasons per client. reason on
// recur_giveups_total is one of six fixed values: a give-up with reason
// open or budget and no attempt made is a call that the breaker or the
// budget refused before its first attempt; budget after an attempt is a
// throttled retry, also counted in recur_retries_throttled_total.
//
// # Cost
//
// An event costs one lock-free map lookup for its target, one for its
// reason if it has one, and the atomic add of a client_golang counter or
// histogram; once a target and label have been seen, nothing is
// allocated. A runner without an Observer pays nothing. See
// docs/benchmarks.md for the numbers, and docs/metrics.md for the
// PromQL of an operator's questions and a Grafana dashboard.
package promrecur
