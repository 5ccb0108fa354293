// Package otelrecur records recur's retries, circuit breakers and retry
// budgets as OpenTelemetry metrics, and adds an event for each retry to
// the caller's span.
//
// New makes one client's instruments on a MeterProvider (nil means the
// global one, otel.GetMeterProvider()); the Metrics it returns is a
// retry.Observer:
//
//	m, err := otelrecur.New(otelrecur.Config{Client: "payments", MeterProvider: mp, Breaker: breakers, Budget: budgets})
//	...
//	defer m.Close()
//	client := &http.Client{Transport: &httpretry.Transport{Breaker: breakers, Budget: budgets, Options: retry.Options{Observer: m}, ...}}
//
// # Instruments
//
// The names follow OpenTelemetry's semantic conventions: dot-separated,
// the unit in the instrument's Unit (UCUM, "{call}" for a count of
// calls), no _total suffix, which a Prometheus exporter adds itself.
// Every data point has the attributes recur.client (Config.Client) and
// recur.target (the event's Target, such as httpretry's
// scheme://host:port).
//
//	recur.calls               counter    {call}     calls: first attempts, and calls refused before theirs
//	recur.attempts            counter    {attempt}  attempts, by recur.verdict
//	recur.attempt.duration    histogram  s          each attempt's time by the runner's clock
//	recur.retries             counter    {retry}    retries decided, by recur.reason (the judgement's label)
//	recur.throttled_retries   counter    {retry}    retries the retry budget refused
//	recur.giveups             counter    {call}     give-ups, by recur.reason (exhausted, deadline, canceled, pushback, open, budget)
//	recur.recoveries          counter    {call}     calls that succeeded after a retry
//	recur.hedges              counter    {copy}     hedged copies started after the first (retry.Hedge)
//	recur.hedges.won          counter    {call}     hedged calls a copy after the first won
//	recur.hedges.canceled     counter    {copy}     copies canceled in flight when another answered
//	recur.breaker.state       gauge      {state}    0 closed, 1 half-open, 2 open
//	recur.breaker.openings    counter    {opening}  openings, re-openings after a failed probe included
//	recur.breaker.rejections  counter    {call}     calls the breaker refused
//	recur.budget.tokens       gauge      {token}    tokens left in a token bucket
//
// The first ten are synchronous instruments that Observe feeds. The
// last four are observable: one callback, registered by New and removed
// by Close, reads the Stats of Config.Breaker, Config.Budget and those
// added with AddBreaker and AddBudget at each collection, so the breakers
// and budgets cost nothing more on the hot path. The breaker counters
// are cumulative sums, as the breakers count.
//
// # Cardinality
//
// Each instrument of a client reports at most MaxTargets recur.target
// values (DefaultMaxTargets, 256, the cap of breaker.Registry and
// budget.Registry); the targets past the cap are folded into the one
// value Overflow, "(other)": their counts added up, the worst breaker
// state, the fewest tokens. A target, once it has a value of its own,
// keeps it. recur.reason has at most MaxReasons values per target, and
// Overflow past them. Values are capped in length too, and folded before
// they are de-duplicated: bytes that are not UTF-8 become U+FFFD, and a
// value longer than 128 bytes is cut to its first 110 bytes or fewer,
// "~" and 16 hex digits of a hash of the whole value. Targets that fold
// to the same value share its data points.
//
// # Span events
//
// When the caller's context holds a recording span
// (trace.SpanFromContext), Observe adds to it an event "recur.retry"
// before each wait, with recur.attempt (the attempt that failed, from 1),
// recur.delay (the wait, in seconds), recur.reason and recur.target; and
// an event "recur.give_up" when the runner gives up or is refused, with
// recur.attempt (the attempts made, 0 if refused before the first),
// recur.reason and recur.target, folded as the instruments' values are.
// Config.ErrorText adds the error's text
// as exception.message. The package makes no span of its own: the
// caller's span, or the one otelhttp or otelgrpc made, is where the
// events belong.
//
// # Cost
//
// Without an Observer, recur's runners read no clock and allocate nothing
// for it. With a Metrics, an event costs a map lookup for its target and
// the SDK's own aggregation: the attribute sets are built once per target
// and reason, never per event.
package otelrecur
