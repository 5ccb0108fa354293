package audit

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/schedule"
)

// MaxLayers is the most layers a plan may have: a call path is a handful
// of hops, and the limit bounds the work of an audit (a layer's policy
// may be run for up to MaxCounted attempts).
const MaxLayers = 64

// problem is one reason a plan cannot be audited.
type problem struct {
	layer, msg string
}

// Validate reports whether the plan is complete and its settings are in
// range, joining one error per problem. Run reports the same problems as
// "invalid-plan" findings.
func (p Plan) Validate() error {
	var errs []error
	for _, pr := range p.problems() {
		if pr.layer != "" {
			errs = append(errs, fmt.Errorf("layer %s: %s", pr.layer, pr.msg))
		} else {
			errs = append(errs, errors.New(pr.msg))
		}
	}
	return errors.Join(errs...)
}

func (p Plan) problems() []problem {
	var out []problem
	add := func(layer, format string, args ...any) {
		out = append(out, problem{layer, fmt.Sprintf(format, args...)})
	}
	switch {
	case len(p.Layers) == 0:
		add("", "the plan has no layers")
	case len(p.Layers) > MaxLayers:
		add("", "the plan has %d layers; at most %d are audited", len(p.Layers), MaxLayers)
		return out
	}
	if p.Deadline < 0 {
		add("", "deadline %v is negative", p.Deadline)
	}
	seen := map[string]bool{}
	for i, l := range p.Layers {
		name := l.Name
		switch {
		case name == "":
			name = fmt.Sprintf("layers[%d]", i)
			add(name, "has no name")
		case seen[name]:
			add(name, "the name is used by an earlier layer too")
		}
		seen[l.Name] = true
		for _, d := range []struct {
			field string
			v     Duration
		}{{"attempt_timeout", l.AttemptTimeout}, {"min_attempt_time", l.MinAttemptTime}} {
			if d.v < 0 {
				add(name, "%s %v is negative", d.field, d.v)
			}
		}
		if l.AttemptTimeout > 0 && l.MinAttemptTime > l.AttemptTimeout {
			add(name, "min_attempt_time %v is above attempt_timeout %v", l.MinAttemptTime, l.AttemptTimeout)
		}
		if l.Retry.Schedule != nil {
			if err := schedule.Validate(l.Retry.Schedule); err != nil {
				add(name, "retry: %v", err)
			}
		}
		for _, c := range l.RetryOn {
			if c < 100 || c > 599 {
				add(name, "retry_on: %d is not an HTTP status code", c)
			}
		}
		if l.Breaker != nil {
			if _, err := breaker.New(l.Breaker.Config()); err != nil {
				add(name, "breaker: %s", strings.TrimPrefix(err.Error(), "breaker: "))
			}
		}
		if l.Budget != nil {
			if _, err := l.Budget.Config(); err != nil {
				add(name, "budget: %s", strings.TrimPrefix(err.Error(), "budget: "))
			}
		}
		for j, o := range l.Operations {
			if o.Name == "" {
				add(name, "operations[%d] has no name", j)
			}
		}
	}
	return out
}

// Config returns the breaker.Config the breaker's settings describe.
func (b Breaker) Config() breaker.Config {
	return breaker.Config{
		ConsecutiveFailures: b.ConsecutiveFailures,
		FailureRate:         b.FailureRate,
		SlowCall:            time.Duration(b.SlowCall),
		SlowRate:            b.SlowRate,
		MinCalls:            b.MinCalls,
		Window:              time.Duration(b.Window),
		OpenFor:             b.OpenFor.Schedule,
		HalfOpenProbes:      b.HalfOpenProbes,
	}
}

// Config returns the package budget config of the budget's kind. It is an
// error when the kind is unknown, when a field of another kind is set, or
// when the config is out of range.
func (b Budget) Config() (budget.Config, error) {
	var c budget.Config
	var other []string
	switch b.Kind {
	case TokenBucket:
		c = budget.TokenBucketConfig{MaxTokens: b.MaxTokens, TokenRatio: b.TokenRatio}
		other = b.setFields("percent", "min_per_second", "window", "k")
	case Ratio:
		c = budget.RatioConfig{Percent: b.Percent, MinPerSecond: b.MinPerSecond, Window: time.Duration(b.Window)}
		other = b.setFields("max_tokens", "token_ratio", "k")
	case Adaptive:
		c = budget.AdaptiveConfig{K: b.K, Window: time.Duration(b.Window)}
		other = b.setFields("max_tokens", "token_ratio", "percent", "min_per_second")
	default:
		return nil, fmt.Errorf("kind %q is not %s, %s or %s", b.Kind, TokenBucket, Ratio, Adaptive)
	}
	if len(other) > 0 {
		return nil, fmt.Errorf("%s does not apply to kind %s", strings.Join(other, ", "), b.Kind)
	}
	if _, err := c.New(); err != nil {
		return nil, err
	}
	return c, nil
}

// setFields returns those of the named fields that are not zero.
func (b Budget) setFields(names ...string) []string {
	var out []string
	for _, n := range names {
		var set bool
		switch n {
		case "max_tokens":
			set = b.MaxTokens != 0
		case "token_ratio":
			set = b.TokenRatio != 0
		case "percent":
			set = b.Percent != 0
		case "min_per_second":
			set = b.MinPerSecond != 0
		case "window":
			set = b.Window != 0
		case "k":
			set = b.K != 0
		}
		if set {
			out = append(out, n)
		}
	}
	return out
}
