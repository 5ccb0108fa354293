package convert

import (
	"encoding/json"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/recur-go/recur/internal/protodur"
	"github.com/recur-go/recur/schedule"
	"go.yaml.in/yaml/v3"
)

// Envoy's defaults (route_components.proto, RetryPolicy; the router
// filter's x-envoy-max-retries section).
const (
	envoyRetries   = 1                     // num_retries unset
	envoyBase      = 25 * time.Millisecond // retry_back_off unset
	envoyMaxFactor = 10                    // max_interval unset: 10 × base_interval
)

// envoyFields maps each RetryPolicy field, under its proto name and its
// JSON (lowerCamelCase) name, to the proto name.
var envoyFields = sync.OnceValue(func() map[string]string {
	return fieldNames(
		"retry_on", "num_retries", "per_try_timeout", "per_try_idle_timeout", "retry_priority",
		"retry_host_predicate", "retry_options_predicates", "host_selection_retry_max_attempts",
		"retriable_status_codes", "retry_back_off", "rate_limited_retry_back_off", "retriable_headers",
		"retriable_request_headers", "refresh_cluster_on_retry",
		// retry_back_off's own, and the field of a route that holds the policy
		"base_interval", "max_interval", "retry_policy",
	)
})

// fieldNames maps proto field names and their lowerCamelCase JSON names
// to the proto names.
func fieldNames(names ...string) map[string]string {
	m := map[string]string{}
	for _, n := range names {
		m[n] = n
		camel := []byte{}
		up := false
		for i := 0; i < len(n); i++ {
			switch {
			case n[i] == '_':
				up = true
			case up && n[i] >= 'a' && n[i] <= 'z':
				camel, up = append(camel, n[i]-'a'+'A'), false
			default:
				camel, up = append(camel, n[i]), false
			}
		}
		m[string(camel)] = n
	}
	return m
}

// envoyCeilings is Envoy's JitteredExponentialBackOffStrategy
// (source/common/common/backoff_strategy.cc): the k-th retry waits a
// random whole number of milliseconds in [0, cₖ), where c₁ is the base
// interval and cₖ₊₁ is 2cₖ while cₖ < max/2 (integer division), else
// max.
func envoyCeilings(base, maxMS uint64) func(k int) time.Duration {
	var seen []uint64
	return func(k int) time.Duration {
		for len(seen) < k {
			if len(seen) == 0 {
				seen = append(seen, base)
				continue
			}
			c := seen[len(seen)-1]
			if c < maxMS/2 {
				c *= 2
			} else {
				c = maxMS
			}
			seen = append(seen, c)
		}
		return time.Duration(seen[k-1]) * time.Millisecond
	}
}

// FromEnvoy reads an Envoy route RetryPolicy (envoy.config.route.v3), in
// JSON or YAML, field names as the proto writes them or in lowerCamelCase:
//
//	retry_on: 5xx,reset,connect-failure
//	num_retries: 3
//	per_try_timeout: 2s
//	retry_back_off:
//	  base_interval: 0.1s
//	  max_interval: 1s
//
// A document {retry_policy: {…}} is read too. Envoy's back-off is fully
// jittered exponential: retry k waits a random time below a ceiling that
// starts at base_interval (default 25ms) and doubles up to max_interval
// (default 10 × base_interval), in whole milliseconds. num_retries
// (default 1) counts the retries, so the schedule is
//
//	Intersect(Jittered(Exponential(base, 200%, max), 0%, 100%), Times(num_retries+1))
//
// and Times(1) for num_retries 0. A Note says that Envoy draws whole
// milliseconds, and, for a max_interval that is odd, where its ceiling
// jumps to max one doubling before recur's. retry_on, per_try_timeout and
// the other fields that are not about when to retry are Retained.
func FromEnvoy(data []byte) (Result, error) {
	d := doc{format: Envoy, norm: func(s string) string {
		if n, ok := envoyFields()[s]; ok {
			return n
		}
		return s
	}}
	root, err := d.decode(data)
	if err != nil {
		return Result{}, err
	}
	path := ""
	if es, err := d.mapping(root, ""); err == nil && len(es) == 1 && d.norm(es[0].key) == "retry_policy" {
		root, path = es[0].value, es[0].key
	}
	es, err := d.mapping(root, path)
	if err != nil {
		return Result{}, err
	}
	var r Result
	retries := int64(envoyRetries)
	base, maxI := envoyBase, time.Duration(0)
	retryOn := ""
	var backOffNode *yaml.Node
	for _, e := range es {
		at := join(path, e.key)
		if isNull(e.value) {
			continue
		}
		keep := func(use string) {
			r.Retained = append(r.Retained, Field{Path: at, Value: raw(e.value), Use: use})
		}
		switch name := d.norm(e.key); name {
		case "retry_on":
			if retryOn, err = d.str(e.value, at); err != nil {
				return Result{}, err
			}
			keep("which failures to retry is not a schedule's: httpretry retries 408, 429, 502, 503, 504 and failed connections; a judge (retry.Options) decides otherwise")
		case "num_retries":
			if retries, err = d.integer(e.value, at, 0, math.MaxUint32); err != nil {
				return Result{}, err
			}
		case "per_try_timeout":
			if _, err := d.protoDuration(e.value, at); err != nil {
				return Result{}, err
			}
			keep("retry.Options.AttemptTimeout, which bounds each attempt")
		case "per_try_idle_timeout":
			if _, err := d.protoDuration(e.value, at); err != nil {
				return Result{}, err
			}
			keep("recur has no idle timeout: the operation itself must give up on a stalled response")
		case "retriable_status_codes", "retriable_headers", "retriable_request_headers":
			keep("which failures to retry is not a schedule's: a judge (retry.Options) that looks at the response")
		case "rate_limited_retry_back_off":
			keep("a server's pushback: return retry.After(err, d) from the operation for Retry-After; retry.Options.MaxPushback caps it (Envoy's max_interval here, 300s when unset)")
		case "retry_priority", "retry_host_predicate", "retry_options_predicates", "host_selection_retry_max_attempts", "refresh_cluster_on_retry":
			keep("which host a retry goes to is not a schedule's: recur does not pick hosts")
		case "retry_back_off":
			backOffNode = e.value
			bes, err := d.mapping(e.value, at)
			if err != nil {
				return Result{}, err
			}
			haveBase := false
			for _, be := range bes {
				bat := join(at, be.key)
				if isNull(be.value) {
					continue
				}
				switch d.norm(be.key) {
				case "base_interval":
					haveBase = true
					if base, err = d.protoDuration(be.value, bat); err != nil {
						return Result{}, err
					}
					if base <= 0 {
						return Result{}, d.errorf(be.value, bat, "must be greater than zero; got %s", protodur.Format(base))
					}
				case "max_interval":
					if maxI, err = d.protoDuration(be.value, bat); err != nil {
						return Result{}, err
					}
					if maxI <= 0 {
						return Result{}, d.errorf(be.value, bat, "must be greater than zero; got %s", protodur.Format(maxI))
					}
				default:
					return Result{}, d.errorf(be.keyN, bat, "is not a field of retry_back_off (base_interval, max_interval)")
				}
			}
			if !haveBase {
				return Result{}, d.errorf(e.value, at, "has no base_interval, which Envoy requires")
			}
		default:
			return Result{}, d.errorf(e.keyN, at, "is not a field of Envoy's RetryPolicy")
		}
	}
	if retryOn == "" {
		r.Notes = append(r.Notes, "retry_on is empty: Envoy then retries nothing, unless a request carries x-envoy-retry-on or x-envoy-retry-grpc-on")
	}
	// Envoy counts whole milliseconds, and rounds below 1ms up to 1ms.
	baseMS := max(1, uint64(base/time.Millisecond))
	maxMS := baseMS * envoyMaxFactor
	if maxI > 0 {
		maxMS = max(1, uint64(maxI/time.Millisecond))
		if maxMS < baseMS {
			return Result{}, d.errorf(backOffNode, join(path, "retry_back_off.max_interval"), "%s is less than base_interval %s, which Envoy refuses",
				protodur.Format(maxI), protodur.Format(base))
		}
	}
	if base != time.Duration(baseMS)*time.Millisecond {
		r.Notes = append(r.Notes, "base_interval "+protodur.Format(base)+" is "+strconv.FormatUint(baseMS, 10)+"ms to Envoy, which counts whole milliseconds (and at least 1)")
	}
	if maxI > 0 && maxI != time.Duration(maxMS)*time.Millisecond {
		r.Notes = append(r.Notes, "max_interval "+protodur.Format(maxI)+" is "+strconv.FormatUint(maxMS, 10)+"ms to Envoy, which counts whole milliseconds (and at least 1)")
	}
	if retries == 0 {
		r.Schedule = schedule.Times{N: 1}
		return r, nil
	}
	exp := schedule.Exponential{Base: time.Duration(baseMS) * time.Millisecond, FactorPct: 200, Cap: time.Duration(maxMS) * time.Millisecond}
	r.Schedule = schedule.Intersect{A: schedule.Jittered{Inner: exp, LowPct: 0, HighPct: 100}, B: schedule.Times{N: int(retries) + 1}}
	r.Notes = append(r.Notes, "Envoy draws each wait as a whole number of milliseconds from 0 to 1ms below the ceiling; recur draws any nanosecond from 0 to the ceiling, so its mean wait is ½ms longer")
	if first, rd, pd, most, _ := mismatch(exp, envoyCeilings(baseMS, maxMS), int(retries), exp.Cap); first > 0 {
		r.Notes = append(r.Notes, "the ceilings of the waits differ from Envoy's by up to "+most.String()+", first at retry "+strconv.Itoa(first)+
			" ("+rd.String()+" here, "+pd.String()+" in Envoy): with an odd max_interval, Envoy goes to max_interval as soon as a doubling would pass half of it")
	}
	return r, nil
}

// envoyRetryOn and envoyStatusCodes are the retry conditions ToEnvoy
// writes: the failures httpretry retries by default (failed and reset
// connections, refused streams, 502, 503, 504 and timeouts, 408 and 429).
const envoyRetryOn = "connect-failure,refused-stream,reset,gateway-error,retriable-status-codes"

var envoyStatusCodes = []uint32{408, 429}

// ToEnvoy writes s as an Envoy route RetryPolicy in JSON (which Envoy's
// YAML reads as well). s must be
//
//	Intersect(Jittered(Exponential(base, 200%, max), 0%, 100%), Times(n))
//
// (fulljitter(base, max) & times(n)), with base and max whole
// milliseconds and Envoy's ceilings equal to recur's for every retry, or
// Times(n) alone for n = 1. The retry conditions are the failures
// httpretry retries by default: retry_on
// "connect-failure,refused-stream,reset,gateway-error,retriable-status-codes"
// with retriable_status_codes [408, 429]; edit them to taste.
func ToEnvoy(s schedule.Schedule) ([]byte, error) {
	if err := schedule.Validate(s); err != nil {
		return nil, err
	}
	type backOff struct {
		Base string `json:"base_interval"`
		Max  string `json:"max_interval"`
	}
	type policy struct {
		RetryOn     string   `json:"retry_on"`
		NumRetries  int64    `json:"num_retries"`
		StatusCodes []uint32 `json:"retriable_status_codes,omitempty"`
		BackOff     *backOff `json:"retry_back_off,omitempty"`
	}
	if t, ok := s.(schedule.Times); ok && t.N == 1 {
		return json.Marshal(policy{RetryOn: envoyRetryOn, NumRetries: 0, StatusCodes: envoyStatusCodes})
	}
	inner, n := splitTimes(s)
	if n == 0 {
		return nil, noEquivalent(Envoy, s, "num_retries bounds every Envoy retry policy: add a Times")
	}
	if n-1 > math.MaxUint32 {
		return nil, noEquivalent(Envoy, s, "num_retries is a 32-bit count; Times("+strconv.Itoa(n)+") is larger")
	}
	jit, ok := inner.(schedule.Jittered)
	exp, isExp := schedule.Schedule(nil), false
	if ok {
		exp, isExp = jit.Inner.(schedule.Exponential)
	}
	if !ok || !isExp || jit.LowPPM() != 0 || jit.HighPPM() != 1_000_000 {
		return nil, noEquivalent(Envoy, s, "Envoy's back-off is full jitter over a doubling exponential, fulljitter(base, max); "+inner.String()+" is not")
	}
	e := exp.(schedule.Exponential)
	switch {
	case e.FactorPPM() != 2_000_000:
		return nil, noEquivalent(Envoy, s, "Envoy's back-off doubles; this one grows by "+string(schedule.AppendPercent(nil, e.FactorPct, e.FactorFrac)))
	case !whole(e.Base, time.Millisecond) || !whole(e.Cap, time.Millisecond):
		return nil, noEquivalent(Envoy, s, "Envoy counts whole milliseconds; base "+e.Base.String()+" and cap "+e.Cap.String()+" must be too")
	case e.Cap < e.Base:
		return nil, noEquivalent(Envoy, s, "Envoy refuses a max_interval below base_interval")
	}
	baseMS, maxMS := uint64(e.Base/time.Millisecond), uint64(e.Cap/time.Millisecond)
	if first, rd, pd, _, _ := mismatch(e, envoyCeilings(baseMS, maxMS), n-1, e.Cap); first > 0 {
		return nil, noEquivalent(Envoy, s, "the ceiling of retry "+strconv.Itoa(first)+" would be "+pd.String()+" in Envoy, "+rd.String()+" here: with an odd max_interval Envoy jumps to it one doubling early")
	}
	return json.Marshal(policy{RetryOn: envoyRetryOn, NumRetries: int64(n - 1), StatusCodes: envoyStatusCodes,
		BackOff: &backOff{Base: protodur.Format(e.Base), Max: protodur.Format(e.Cap)}})
}
