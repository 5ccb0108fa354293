package audit

import (
	"fmt"
	"time"

	"github.com/recur-go/recur/parse"
)

// Plan is a resilience plan: the path one request takes, as an ordered
// list of layers from the edge (Layers[0], which receives the request)
// down to the last layer, which calls the dependency. Each layer retries
// (or not) its calls to the next layer, or to the dependency for the last
// one. docs/audit-plan.schema.json documents the format and
// docs/audit.md the rules.
type Plan struct {
	// Name names the plan in reports.
	Name string `json:"name,omitempty" yaml:"name,omitempty"`
	// Dependency names what the last layer calls, such as "orders-db",
	// for messages; empty means "the dependency".
	Dependency string `json:"dependency,omitempty" yaml:"dependency,omitempty"`
	// Deadline is the request's deadline, set at the edge: how long the
	// caller of Layers[0] waits in all. Zero means none is set.
	Deadline Duration `json:"deadline,omitempty" yaml:"deadline,omitempty"`
	// Layers is the call path, edge first.
	Layers []Layer `json:"layers" yaml:"layers"`
}

// Layer is one hop of the call path: a service, or a client library
// inside one, and how it calls the next hop.
type Layer struct {
	// Name identifies the layer in findings; it must be unique in the plan.
	Name string `json:"name" yaml:"name"`
	// Library is the resilience library the layer uses, with its version
	// if you like ("resilience4j 2.2", "recur", "hystrix 1.5").
	Library string `json:"library,omitempty" yaml:"library,omitempty"`
	// Retry is the layer's retry policy for calls to the next hop, in
	// recur's policy language (docs/language.md). The zero Policy means
	// the layer does not retry, as does Times(1).
	Retry parse.Policy `json:"retry,omitzero" yaml:"retry,omitempty"`
	// Hedge is the layer's hedging policy for calls to the next hop, in
	// the same language (see retry.Hedge and docs/hedging.md): while no
	// answer has come, another copy of the call starts at each of its
	// delays. The zero Policy means the layer does not hedge. A hedged
	// call sends up to its number of copies, as a retried one sends its
	// attempts, so Amplification counts the larger of the two.
	Hedge parse.Policy `json:"hedge,omitzero" yaml:"hedge,omitempty"`
	// RetryOn lists the HTTP status codes the layer retries, if it says.
	RetryOn []int `json:"retry_on,omitempty" yaml:"retry_on,omitempty"`
	// AttemptTimeout bounds one call to the next hop. Zero means none: an
	// attempt may last as long as the deadline the layer has.
	AttemptTimeout Duration `json:"attempt_timeout,omitempty" yaml:"attempt_timeout,omitempty"`
	// MinAttemptTime is the least time one failed attempt takes, if the
	// layer can promise one (say, a fixed connect delay). Zero means an
	// attempt may fail at once — connection refused, a breaker's
	// rejection — which is the worst case for a policy bounded only by
	// time (see MaxAttempts).
	MinAttemptTime Duration `json:"min_attempt_time,omitempty" yaml:"min_attempt_time,omitempty"`
	// PropagatesDeadline is true when the layer passes the time left of
	// the deadline it received, at most AttemptTimeout, to the next hop;
	// false when it sets a fresh AttemptTimeout (or nothing) per hop.
	PropagatesDeadline bool `json:"propagates_deadline" yaml:"propagates_deadline"`
	// Breaker is the layer's circuit breaker on calls to the next hop, or
	// nil for none.
	Breaker *Breaker `json:"breaker,omitempty" yaml:"breaker,omitempty"`
	// Budget is the layer's per-client retry budget, or nil for none.
	Budget *Budget `json:"budget,omitempty" yaml:"budget,omitempty"`
	// Operations lists the operations the layer calls on the next hop,
	// and whether each is safe to repeat.
	Operations []Operation `json:"operations,omitempty" yaml:"operations,omitempty"`
}

// Breaker is a layer's circuit breaker. The fields are those of
// breaker.Config, with its defaults for zero values (see Config); plans
// for other libraries translate (docs/audit.md has the Resilience4j
// names).
type Breaker struct {
	ConsecutiveFailures int      `json:"consecutive_failures,omitempty" yaml:"consecutive_failures,omitempty"`
	FailureRate         int      `json:"failure_rate,omitempty" yaml:"failure_rate,omitempty"`
	SlowCall            Duration `json:"slow_call,omitempty" yaml:"slow_call,omitempty"`
	SlowRate            int      `json:"slow_rate,omitempty" yaml:"slow_rate,omitempty"`
	MinCalls            int      `json:"min_calls,omitempty" yaml:"min_calls,omitempty"`
	Window              Duration `json:"window,omitempty" yaml:"window,omitempty"`
	// OpenFor is how long the breaker stays open, as a policy whose k-th
	// delay is the k-th opening's duration: spaced(60s) for a constant
	// minute. The zero Policy means breaker.DefaultOpenFor.
	OpenFor        parse.Policy `json:"open_for,omitzero" yaml:"open_for,omitempty"`
	HalfOpenProbes int          `json:"half_open_probes,omitempty" yaml:"half_open_probes,omitempty"`
	// RetryOnOpen is true when the layer's retry loop retries a call the
	// breaker refused (breaker.ErrOpen, Resilience4j's
	// CallNotPermittedException) instead of returning at once.
	RetryOnOpen bool `json:"retry_on_open,omitempty" yaml:"retry_on_open,omitempty"`
}

// Budget kinds, as package budget names them.
const (
	TokenBucket = "token_bucket" // budget.TokenBucketConfig, gRFC A6
	Ratio       = "ratio"        // budget.RatioConfig, the SRE book's retry budget
	Adaptive    = "adaptive"     // budget.AdaptiveConfig, the SRE book's client-side throttling
)

// Budget is a layer's per-client retry budget. Kind picks the package
// budget config; the other fields are that config's, with its defaults
// for zero values, and must be zero for the other kinds.
type Budget struct {
	Kind string `json:"kind" yaml:"kind"`
	// MaxTokens and TokenRatio are TokenBucketConfig's.
	MaxTokens  int     `json:"max_tokens,omitempty" yaml:"max_tokens,omitempty"`
	TokenRatio float64 `json:"token_ratio,omitempty" yaml:"token_ratio,omitempty"`
	// Percent and MinPerSecond are RatioConfig's.
	Percent      int `json:"percent,omitempty" yaml:"percent,omitempty"`
	MinPerSecond int `json:"min_per_second,omitempty" yaml:"min_per_second,omitempty"`
	// Window is RatioConfig's or AdaptiveConfig's.
	Window Duration `json:"window,omitempty" yaml:"window,omitempty"`
	// K is AdaptiveConfig's.
	K float64 `json:"k,omitempty" yaml:"k,omitempty"`
}

// Operation is one operation a layer calls on the next hop.
type Operation struct {
	Name string `json:"name" yaml:"name"`
	// Idempotent is true when doing the operation twice has the effect of
	// doing it once (GET, PUT, DELETE by id).
	Idempotent bool `json:"idempotent,omitempty" yaml:"idempotent,omitempty"`
	// IdempotencyKey is true when each call carries a key the next hop
	// uses to do a repeated call only once.
	IdempotencyKey bool `json:"idempotency_key,omitempty" yaml:"idempotency_key,omitempty"`
}

// Duration is a time.Duration written in Go syntax ("250ms", "1m30s") in
// JSON and YAML.
type Duration time.Duration

// String returns the duration in Go syntax.
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalText returns the duration in Go syntax.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText parses a duration in Go syntax; it must not be negative.
func (d *Duration) UnmarshalText(text []byte) error {
	v, err := time.ParseDuration(string(text))
	if err != nil {
		return fmt.Errorf("invalid duration %q: want Go syntax such as 250ms or 1m30s", text)
	}
	if v < 0 {
		return fmt.Errorf("invalid duration %q: negative", text)
	}
	*d = Duration(v)
	return nil
}
