package convert

import (
	"encoding/json"
	"math"
	"strconv"
	"time"

	"github.com/recur-go/recur/internal/protodur"
	"github.com/recur-go/recur/schedule"
	"go.yaml.in/yaml/v3"
)

// Temporal's defaults, as its RetryPolicy documents them.
const (
	temporalInitial     = time.Second // initialInterval 0 or unset
	temporalCoefficient = 2.0         // backoffCoefficient 0 or unset
	temporalMaxFactor   = 100         // maximumInterval 0 or unset: 100 × initialInterval
)

// temporalFields maps each RetryPolicy field, under the names protobuf
// JSON accepts (lowerCamelCase and the proto's snake_case), to its
// lowerCamelCase name.
var temporalFields = map[string]string{
	"initialInterval": "initialInterval", "initial_interval": "initialInterval",
	"backoffCoefficient": "backoffCoefficient", "backoff_coefficient": "backoffCoefficient",
	"maximumInterval": "maximumInterval", "maximum_interval": "maximumInterval",
	"maximumAttempts": "maximumAttempts", "maximum_attempts": "maximumAttempts",
	"nonRetryableErrorTypes": "nonRetryableErrorTypes", "non_retryable_error_types": "nonRetryableErrorTypes",
}

// temporalPolicy is a RetryPolicy with Temporal's defaults applied.
type temporalPolicy struct {
	initial, maximum time.Duration
	coefficient      float64
	attempts         int32 // 0: unlimited
}

// backoff is the SDK's formula (internal.getRetryBackoffWithNowTime) for
// the wait before retry k (attempt k+1): initialInterval ×
// backoffCoefficient^(k−1) in float64, truncated to nanoseconds, capped at
// maximumInterval, and maximumInterval when the product overflows.
func (p temporalPolicy) backoff(k int) time.Duration {
	f := float64(p.initial) * math.Pow(p.coefficient, float64(k-1))
	if !(f < math.MaxInt64) {
		return p.maximum
	}
	d := time.Duration(f)
	if d <= 0 || d > p.maximum {
		return p.maximum
	}
	return d
}

// FromTemporal reads a Temporal RetryPolicy in its protobuf JSON form,
// as Temporal's API and "temporal workflow describe" show it:
//
//	{
//	  "initialInterval": "1s",
//	  "backoffCoefficient": 2,
//	  "maximumInterval": "100s",
//	  "maximumAttempts": 5,
//	  "nonRetryableErrorTypes": ["InvalidOrder"]
//	}
//
// A document {"retryPolicy": {…}} is read too. Fields left out or 0 take
// Temporal's defaults: initialInterval 1s, backoffCoefficient 2,
// maximumInterval 100 × initialInterval, maximumAttempts 0 (no limit).
// The schedule is
//
//	Intersect(Exponential(initialInterval, backoffCoefficient, maximumInterval), Times(maximumAttempts))
//
// without the Times when maximumAttempts is 0, and Times(1) when it is 1.
// Temporal does not jitter. nonRetryableErrorTypes is Retained. A
// backoffCoefficient that is not a whole millionth is refused; the few
// nanoseconds by which Temporal's floating-point power can differ from
// Exponential's integer steps are computed, and a Note says so when
// they do.
func FromTemporal(data []byte) (Result, error) {
	d := doc{format: Temporal, norm: func(s string) string {
		if n, ok := temporalFields[s]; ok {
			return n
		}
		return s
	}}
	root, err := d.decode(data)
	if err != nil {
		return Result{}, err
	}
	path := ""
	if es, err := d.mapping(root, ""); err == nil && len(es) == 1 && (es[0].key == "retryPolicy" || es[0].key == "retry_policy") {
		root, path = es[0].value, es[0].key
	}
	es, err := d.mapping(root, path)
	if err != nil {
		return Result{}, err
	}
	var p temporalPolicy
	var r Result
	var maxNode, initNode, coefNode *yaml.Node
	for _, e := range es {
		at := join(path, e.key)
		if isNull(e.value) {
			continue
		}
		switch d.norm(e.key) {
		case "initialInterval":
			initNode = e.value
			if p.initial, err = d.protoDuration(e.value, at); err != nil {
				return Result{}, err
			}
		case "maximumInterval":
			maxNode = e.value
			if p.maximum, err = d.protoDuration(e.value, at); err != nil {
				return Result{}, err
			}
		case "backoffCoefficient":
			coefNode = e.value
			if p.coefficient, err = d.number(e.value, at); err != nil {
				return Result{}, err
			}
		case "maximumAttempts":
			n, err := d.integer(e.value, at, math.MinInt32, math.MaxInt32)
			if err != nil {
				return Result{}, err
			}
			if n < 0 {
				return Result{}, d.errorf(e.value, at, "must not be negative; got %d (0 means no limit)", n)
			}
			p.attempts = int32(n)
		case "nonRetryableErrorTypes":
			v, err := d.list(e.value, at)
			if err != nil {
				return Result{}, err
			}
			if v != "[]" {
				r.Retained = append(r.Retained, Field{Path: at, Value: v,
					Use: "which errors to retry is not a schedule's: give retry.RetryWhile a worth function that returns false for errors of these types"})
			}
		default:
			return Result{}, d.errorf(e.keyN, at, "is not a field of Temporal's RetryPolicy (initialInterval, backoffCoefficient, maximumInterval, maximumAttempts, nonRetryableErrorTypes)")
		}
	}
	if p.attempts == 1 {
		// Temporal checks nothing else: one attempt, no retry.
		r.Schedule = schedule.Times{N: 1}
		return r, nil
	}
	coefAt := join(path, "backoffCoefficient")
	switch {
	case p.coefficient != 0 && p.coefficient < 1:
		return Result{}, d.errorf(coefNode, coefAt, "must be at least 1; got %s (Temporal refuses a coefficient below 1)", coefNode.Value)
	case p.coefficient != 0:
		if _, _, ok := factor(p.coefficient); !ok {
			return Result{}, d.refuse(coefNode, coefAt, "%s is not a whole millionth from 1 to 1000000: recur's factor steps by 0.0001%%; write it to six decimals", coefNode.Value)
		}
	}
	switch {
	case p.initial < 0:
		return Result{}, d.errorf(initNode, join(path, "initialInterval"), "must not be negative; got %s", protodur.Format(p.initial))
	case p.maximum < 0:
		return Result{}, d.errorf(maxNode, join(path, "maximumInterval"), "must not be negative; got %s", protodur.Format(p.maximum))
	case p.maximum > 0 && p.maximum < p.initial:
		return Result{}, d.errorf(maxNode, join(path, "maximumInterval"), "%s is less than initialInterval %s, which Temporal refuses",
			protodur.Format(p.maximum), protodur.Format(p.initial))
	}
	if p.initial == 0 {
		p.initial = temporalInitial
	}
	if p.coefficient == 0 {
		p.coefficient = temporalCoefficient
	}
	if p.maximum == 0 {
		p.maximum = satMul(p.initial, temporalMaxFactor)
	}
	pct, frac, _ := factor(p.coefficient)
	exp := schedule.Exponential{Base: p.initial, FactorPct: pct, FactorFrac: frac, Cap: p.maximum}
	r.Schedule = exp
	retries := math.MaxInt
	if p.attempts > 0 {
		r.Schedule = schedule.Intersect{A: exp, B: schedule.Times{N: int(p.attempts)}}
		retries = int(p.attempts) - 1
	}
	if first, rd, pd, most, _ := mismatch(exp, p.backoff, retries, p.maximum); first > 0 {
		r.Notes = append(r.Notes, differNote("Temporal", "Temporal computes initialInterval × backoffCoefficient^(n−1) in floating point, recur multiplies wait by wait in whole nanoseconds", first, rd, pd, most))
	}
	return r, nil
}

func satMul(d time.Duration, n int64) time.Duration {
	if d > math.MaxInt64/time.Duration(n) {
		return math.MaxInt64
	}
	return d * time.Duration(n)
}

// ToTemporal writes s as a Temporal RetryPolicy in protobuf JSON. s must
// be an Exponential (its base at most its cap), alone for no attempt
// limit or in an Intersect with Times(n), or Times(1): the shapes
// FromTemporal returns. The waits Temporal computes for it must be s's
// exactly, to the nanosecond, for every retry s allows (or until both
// reach the cap); otherwise the error, which wraps ErrNoEquivalent, names
// the first retry that differs.
func ToTemporal(s schedule.Schedule) ([]byte, error) {
	if err := schedule.Validate(s); err != nil {
		return nil, err
	}
	type policy struct {
		InitialInterval    string  `json:"initialInterval,omitempty"`
		BackoffCoefficient float64 `json:"backoffCoefficient,omitempty"`
		MaximumInterval    string  `json:"maximumInterval,omitempty"`
		MaximumAttempts    int32   `json:"maximumAttempts"`
	}
	if t, ok := s.(schedule.Times); ok && t.N == 1 {
		return json.Marshal(policy{MaximumAttempts: 1})
	}
	inner, n := splitTimes(s)
	exp, ok := inner.(schedule.Exponential)
	if !ok {
		return nil, noEquivalent(Temporal, s, "Temporal's backoff is an Exponential, with an optional Times; "+inner.String()+" is not one")
	}
	switch {
	case n > math.MaxInt32:
		return nil, noEquivalent(Temporal, s, "maximumAttempts is a 32-bit integer; Times("+strconv.Itoa(n)+") is larger")
	case exp.Cap < exp.Base:
		return nil, noEquivalent(Temporal, s, "its cap "+exp.Cap.String()+" is below its base "+exp.Base.String()+", and Temporal refuses a maximumInterval below initialInterval")
	}
	p := temporalPolicy{initial: exp.Base, maximum: exp.Cap, coefficient: factorFloat(exp), attempts: int32(n)}
	retries := math.MaxInt
	if n > 0 {
		retries = n - 1
	}
	if first, rd, pd, _, compared := mismatch(exp, p.backoff, retries, exp.Cap); first > 0 {
		return nil, noEquivalent(Temporal, s, "retry "+strconv.Itoa(first)+" would wait "+pd.String()+" in Temporal, "+rd.String()+" here (Temporal computes the power in floating point)")
	} else if n == 0 && compared == compareLimit && exp.FactorPPM() != 1_000_000 {
		return nil, noEquivalent(Temporal, s, "its waits do not reach the cap within "+strconv.Itoa(compareLimit)+" retries, so they cannot be compared with Temporal's for all of them; add a Times")
	}
	return json.Marshal(policy{
		InitialInterval:    protodur.Format(exp.Base),
		BackoffCoefficient: factorFloat(exp),
		MaximumInterval:    protodur.Format(exp.Cap),
		MaximumAttempts:    int32(n),
	})
}
