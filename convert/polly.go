package convert

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/recur-go/recur/internal/protodur"
	"github.com/recur-go/recur/schedule"
)

// Polly v8's RetryStrategyOptions defaults and limits (RetryConstants,
// the Range attributes of RetryStrategyOptions<TResult>).
const (
	pollyRetries  = 3
	pollyDelay    = 2 * time.Second
	pollyMaxDelay = 24 * time.Hour // Delay and MaxDelay: "00:00:00" to "1.00:00:00"
	pollyForever  = math.MaxInt32  // MaxRetryAttempts int.MaxValue retries for ever
	tick          = 100 * time.Nanosecond
)

// The backoff types, as DelayBackoffType numbers them.
const (
	pollyConstant = iota
	pollyLinear
	pollyExponential
)

var pollyTypes = []string{"Constant", "Linear", "Exponential"}

// FromPolly reads Polly v8's RetryStrategyOptions as a configuration
// section binds them (appsettings.json; keys in any case, values as JSON
// numbers, booleans or strings, TimeSpans as .NET writes them):
//
//	{
//	  "MaxRetryAttempts": 4,
//	  "BackoffType": "Exponential",
//	  "UseJitter": true,
//	  "Delay": "00:00:00.200",
//	  "MaxDelay": "00:00:05"
//	}
//
// Left out, MaxRetryAttempts is 3, BackoffType Constant, UseJitter false,
// Delay 2 seconds and MaxDelay none. MaxRetryAttempts counts the retries,
// so n is Times(n+1); int.MaxValue (2147483647) retries for ever. Attempt
// k (from 0) waits:
//
//	Constant     Delay                    exponential(Delay, 100%, Delay)
//	Linear       (k+1)·Delay              linear(Delay)
//	Exponential  2ᵏ·Delay                 exponential(Delay, 200%, MaxDelay)
//
// UseJitter scales a Constant or Linear wait by a random 75% to 125%
// (jittered(…, 75%, 125%)) and makes Exponential Polly's
// DecorrelatedJitterBackoffV2, recur's decorrelatedv2(Delay). MaxDelay
// caps every wait (capped(…, MaxDelay)). Delay 0 waits nothing. The
// delegates (ShouldHandle, DelayGenerator, OnRetry) are code, not
// configuration, and are refused if the document has them.
func FromPolly(data []byte) (Result, error) {
	d := doc{format: Polly, norm: strings.ToLower}
	root, err := d.decode(data)
	if err != nil {
		return Result{}, err
	}
	es, err := d.mapping(root, "")
	if err != nil {
		return Result{}, err
	}
	retries := int64(pollyRetries)
	kind := pollyConstant
	jitter := false
	delay, maxDelay, hasMax := pollyDelay, time.Duration(0), false
	var r Result
	for _, e := range es {
		at := e.key
		switch strings.ToLower(e.key) {
		case "maxretryattempts":
			if retries, err = d.integer(e.value, at, 1, math.MaxInt32); err != nil {
				return Result{}, err
			}
		case "backofftype":
			s, err := d.str(e.value, at)
			if err != nil {
				return Result{}, err
			}
			kind = -1
			for i, t := range pollyTypes {
				if strings.EqualFold(strings.TrimSpace(s), t) || strings.TrimSpace(s) == strconv.Itoa(i) {
					kind = i
				}
			}
			if kind < 0 {
				return Result{}, d.errorf(e.value, at, "want Constant, Linear or Exponential; got %s", quote(s))
			}
		case "usejitter":
			if jitter, err = d.boolean(e.value, at); err != nil {
				return Result{}, err
			}
		case "delay", "maxdelay":
			if isNull(e.value) {
				if strings.EqualFold(e.key, "delay") {
					return Result{}, d.errorf(e.value, at, "want a TimeSpan such as \"00:00:02\"; got null")
				}
				continue
			}
			s, err := d.str(e.value, at)
			if err != nil {
				return Result{}, err
			}
			v, perr := parseTimeSpan(s)
			if perr != nil {
				return Result{}, d.errorf(e.value, at, "TimeSpan %s: %v", quote(s), perr)
			}
			if v < 0 || v > pollyMaxDelay {
				return Result{}, d.errorf(e.value, at, "must be from 00:00:00 to 1.00:00:00 (a day); got %s", quote(s))
			}
			if !strings.Contains(s, ":") {
				r.Notes = append(r.Notes, at+" "+quote(s)+" is read as "+strings.TrimSpace(s)+" days, as .NET's TimeSpan.Parse reads a number without colons")
			}
			if strings.EqualFold(e.key, "delay") {
				delay = v
			} else {
				maxDelay, hasMax = v, true
			}
		case "name":
			if _, err := d.str(e.value, at); err != nil {
				return Result{}, err
			}
		case "shouldhandle", "delaygenerator", "onretry", "randomizer":
			return Result{}, d.refuse(e.keyN, at, "is a delegate, which a configuration file cannot hold; recur's equivalent is code too (a worth function or judge, retry.Options.Observer)")
		default:
			return Result{}, d.errorf(e.keyN, at, "is not a field of Polly's RetryStrategyOptions (MaxRetryAttempts, BackoffType, UseJitter, Delay, MaxDelay, Name)")
		}
	}
	var wait schedule.Schedule
	switch {
	case delay == 0 || hasMax && maxDelay == 0:
		wait = schedule.Forever{} // Polly waits nothing
	case !jitter && kind == pollyConstant:
		c := delay
		if hasMax {
			c = min(c, maxDelay)
		}
		wait = schedule.Exponential{Base: c, FactorPct: 100, Cap: c}
	case !jitter && kind == pollyExponential:
		c := schedule.MaxDuration
		if hasMax {
			c = maxDelay
		}
		wait = schedule.Exponential{Base: delay, FactorPct: 200, Cap: c}
	default:
		switch kind {
		case pollyConstant:
			wait = schedule.Jittered{Inner: schedule.Exponential{Base: delay, FactorPct: 100, Cap: delay}, LowPct: 75, HighPct: 125}
		case pollyLinear:
			wait = schedule.Linear{Base: delay, Step: delay}
			if jitter {
				wait = schedule.Jittered{Inner: wait, LowPct: 75, HighPct: 125}
			}
		case pollyExponential:
			wait = schedule.DecorrelatedV2{Base: delay}
		}
		if hasMax {
			wait = schedule.Capped{Inner: wait, Max: maxDelay}
		}
	}
	if retries == pollyForever {
		r.Schedule = wait
	} else if _, ok := wait.(schedule.Forever); ok {
		r.Schedule = schedule.Times{N: int(retries) + 1}
	} else {
		r.Schedule = schedule.Intersect{A: wait, B: schedule.Times{N: int(retries) + 1}}
	}
	if !hasMax && delay > 0 && kind != pollyConstant && pollyOverflows(kind, jitter, delay, retries) {
		r.Notes = append(r.Notes, "without a MaxDelay the waits grow past 292 years, Go's longest duration, where recur's stop growing; Polly's go on to TimeSpan.MaxValue (29,227 years)")
	}
	return r, nil
}

// pollyOverflows reports whether some retry's wait can pass
// schedule.MaxDuration.
func pollyOverflows(kind int, jitter bool, delay time.Duration, retries int64) bool {
	if retries == pollyForever {
		return true
	}
	limit := float64(schedule.MaxDuration) / float64(delay)
	switch kind {
	case pollyLinear:
		return float64(retries)*1.25 >= limit
	default: // exponential: 2^(retries-1), and the decorrelated curve rises about as fast
		return float64(retries) >= math.Log2(limit)
	}
}

// parseTimeSpan reads a TimeSpan as .NET's TimeSpan.Parse does with the
// invariant culture: [-]d, or [-][d.]hh:mm[:ss[.fffffff]], or
// [-]d:hh:mm:ss[.fffffff].
func parseTimeSpan(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	neg := false
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		neg, s = true, rest
	}
	num := func(p string, most int64) (int64, error) {
		if p == "" || len(p) > 8 || !protodur.Digits(p) {
			return 0, fmt.Errorf("want digits, got %s", quote(p))
		}
		v, _ := strconv.ParseInt(p, 10, 64)
		if v > most {
			return 0, fmt.Errorf("%s is more than %d", p, most)
		}
		return v, nil
	}
	var days, h, m, sec, frac int64
	var err error
	parts := strings.Split(s, ":")
	switch len(parts) {
	case 1:
		if days, err = num(parts[0], 10_675_199); err != nil {
			return 0, err
		}
	case 2, 3, 4:
		if len(parts) == 4 {
			if days, err = num(parts[0], 10_675_199); err != nil {
				return 0, err
			}
			parts = parts[1:]
		} else if dd, hh, ok := strings.Cut(parts[0], "."); ok {
			if days, err = num(dd, 10_675_199); err != nil {
				return 0, err
			}
			parts[0] = hh
		}
		if h, err = num(parts[0], 23); err != nil {
			return 0, err
		}
		if m, err = num(parts[1], 59); err != nil {
			return 0, err
		}
		if len(parts) == 3 {
			ss, ff, hasFrac := strings.Cut(parts[2], ".")
			if sec, err = num(ss, 59); err != nil {
				return 0, err
			}
			if hasFrac {
				if ff == "" || len(ff) > 7 || !protodur.Digits(ff) {
					return 0, errors.New("want 1 to 7 digits of a second after the point")
				}
				frac, _ = strconv.ParseInt(ff+strings.Repeat("0", 7-len(ff)), 10, 64)
			}
		}
	default:
		return 0, errors.New("want [d.]hh:mm:ss[.fffffff]")
	}
	ticks := ((((days*24+h)*60+m)*60+sec)*10_000_000 + frac)
	if ticks > math.MaxInt64/100 {
		return 0, errors.New("is longer than Go's longest duration")
	}
	d := time.Duration(ticks) * tick
	if neg {
		d = -d
	}
	return d, nil
}

// formatTimeSpan writes d as .NET's "c" format: [d.]hh:mm:ss[.fffffff].
func formatTimeSpan(d time.Duration) string {
	ticks := int64(d / tick)
	days, rest := ticks/(24*3600*1e7), ticks%(24*3600*1e7)
	s := fmt.Sprintf("%02d:%02d:%02d", rest/(3600*1e7), rest/(60*1e7)%60, rest/1e7%60)
	if f := rest % 1e7; f != 0 {
		s += fmt.Sprintf(".%07d", f)
	}
	if days > 0 {
		s = strconv.FormatInt(days, 10) + "." + s
	}
	return s
}

// ToPolly writes s as Polly v8 RetryStrategyOptions in JSON, for a
// configuration section. s must have a shape FromPolly returns: a Times
// (n ≥ 2, n − 1 retries) with no wait, or one of the waits above with or
// without a Times, whose durations are whole ticks (100ns) of at most a
// day.
func ToPolly(s schedule.Schedule) ([]byte, error) {
	if err := schedule.Validate(s); err != nil {
		return nil, err
	}
	type options struct {
		MaxRetryAttempts int64
		BackoffType      string
		UseJitter        bool `json:",omitempty"`
		Delay            string
		MaxDelay         string `json:",omitempty"`
	}
	inner, n := splitTimes(s)
	var o options
	switch {
	case n == 0:
		o.MaxRetryAttempts = pollyForever
	case n == 1:
		return nil, noEquivalent(Polly, s, "MaxRetryAttempts is at least 1, so Polly always retries once; Times(1) makes no retry")
	case int64(n)-1 >= pollyForever:
		return nil, noEquivalent(Polly, s, "MaxRetryAttempts is below 2147483647, which means no limit")
	default:
		o.MaxRetryAttempts = int64(n) - 1
	}
	var maxDelay time.Duration
	if c, ok := inner.(schedule.Capped); ok {
		if c.Max == 0 {
			return nil, noEquivalent(Polly, s, "a cap of 0 waits nothing: write the Times alone")
		}
		maxDelay, inner = c.Max, c.Inner
		_, linear := inner.(schedule.Linear)
		_, jittered := inner.(schedule.Jittered)
		_, decorrelated := inner.(schedule.DecorrelatedV2)
		if !linear && !jittered && !decorrelated {
			return nil, noEquivalent(Polly, s, "a Capped around "+inner.String()+" is not a shape Polly writes: cap an exponential with its own cap")
		}
	}
	var delay time.Duration
	constant := func(e schedule.Exponential) bool { return e.FactorPPM() == 1_000_000 && e.Cap == e.Base }
	// Type assertions, not a switch: a switch over the schedule variants
	// names them all (internal/exhaustive), and Polly has four shapes.
	if _, ok := inner.(schedule.Forever); ok {
		o.BackoffType, delay = "Constant", 0
	} else if v, ok := inner.(schedule.Exponential); ok {
		switch {
		case constant(v):
			o.BackoffType, delay = "Constant", v.Base
		case v.FactorPPM() == 2_000_000:
			o.BackoffType, delay = "Exponential", v.Base
			if v.Cap != schedule.MaxDuration {
				maxDelay = v.Cap
			}
		default:
			return nil, noEquivalent(Polly, s, "Polly's exponential doubles (or waits a constant delay); "+v.String()+" does not")
		}
	} else if v, ok := inner.(schedule.Linear); ok {
		if v.Step != v.Base {
			return nil, noEquivalent(Polly, s, "Polly's linear backoff adds its base each time; "+v.String()+" adds "+v.Step.String())
		}
		o.BackoffType, delay = "Linear", v.Base
	} else if v, ok := inner.(schedule.Jittered); ok {
		if v.LowPPM() != 750_000 || v.HighPPM() != 1_250_000 {
			return nil, noEquivalent(Polly, s, "Polly's jitter is 75% to 125%; "+v.String()+" is not")
		}
		o.UseJitter = true
		if w, ok := v.Inner.(schedule.Exponential); ok {
			if !constant(w) {
				return nil, noEquivalent(Polly, s, "Polly jitters a constant or linear delay this way; "+w.String()+" is neither")
			}
			o.BackoffType, delay = "Constant", w.Base
		} else if w, ok := v.Inner.(schedule.Linear); ok {
			if w.Step != w.Base {
				return nil, noEquivalent(Polly, s, "Polly's linear backoff adds its base each time; "+w.String()+" adds "+w.Step.String())
			}
			o.BackoffType, delay = "Linear", w.Base
		} else {
			return nil, noEquivalent(Polly, s, "Polly jitters a constant or linear delay; "+v.Inner.String()+" is neither")
		}
	} else if v, ok := inner.(schedule.DecorrelatedV2); ok {
		o.BackoffType, o.UseJitter, delay = "Exponential", true, v.Base
	} else {
		return nil, noEquivalent(Polly, s, inner.String()+" is none of Polly's backoffs (constant, linear, exponential, each with or without its jitter)")
	}
	if delay == 0 && inner != (schedule.Forever{}) {
		return nil, noEquivalent(Polly, s, "a Delay of 0 makes Polly wait nothing, whatever the backoff")
	}
	for _, v := range []struct {
		name string
		d    time.Duration
	}{{"Delay", delay}, {"MaxDelay", maxDelay}} {
		if !whole(v.d, tick) || v.d > pollyMaxDelay {
			return nil, noEquivalent(Polly, s, v.name+" "+v.d.String()+" must be whole ticks of 100ns and at most a day")
		}
	}
	o.Delay = formatTimeSpan(delay)
	if maxDelay > 0 {
		o.MaxDelay = formatTimeSpan(maxDelay)
	}
	return json.Marshal(o)
}
