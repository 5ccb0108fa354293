package grpcconfig

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/recur-go/recur/schedule"
)

// Jitter says which of gRFC A6's two backoff formulas a conversion
// follows. Both share the ceiling of the n-th retry's wait,
// cₙ = min(initialBackoff·backoffMultiplier^(n−1), maxBackoff).
type Jitter uint8

const (
	// FullJitter waits a uniformly random time in [0, cₙ): A6 as first
	// published, Brooker's "Full Jitter" and schedule.FullJitter's. It spreads
	// retries the most. Schedule: Jittered(Exponential(…), 0%, 100%).
	FullJitter Jitter = iota
	// PlusMinus20 waits cₙ scaled by a random factor in [0.8, 1.2]: A6
	// as revised in 2024, what grpc-go v1.85 does. Schedule:
	// Jittered(Exponential(…), 80%, 120%).
	PlusMinus20
)

// String returns "full jitter" or "±20%".
func (j Jitter) String() string {
	switch j {
	case FullJitter:
		return "full jitter"
	case PlusMinus20:
		return "±20%"
	}
	return "jitter(" + strconv.Itoa(int(j)) + ")"
}

// bounds returns the jitter's percentages.
func (j Jitter) bounds() (low, high int, ok bool) {
	switch j {
	case FullJitter:
		return 0, 100, true
	case PlusMinus20:
		return 80, 120, true
	}
	return 0, 0, false
}

// maxMultiplier bounds the multipliers Schedule converts: a larger one
// reaches maxBackoff at the first growth anyway.
const maxMultiplier = 1e6

// Schedule returns the schedule that waits as p does under jitter j:
//
//	Intersect(Jittered(Exponential(initialBackoff, multiplier·100%, maxBackoff), low, high), Times(attempts))
//
// with attempts = p.Attempts() (maxAttempts capped at 5) and low–high
// 0–100% for FullJitter, 80–120% for PlusMinus20. A multiplier that is
// not a whole millionth is rounded to the nearest one (see Notes). It
// returns an error for an invalid policy, and for a multiplier below 1 or
// above a million, which no Exponential matches.
func (p RetryPolicy) Schedule(j Jitter) (schedule.Schedule, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	low, high, ok := j.bounds()
	if !ok {
		return nil, fmt.Errorf("grpcconfig: unknown %v", j)
	}
	pct, frac, _, err := factorPct(p.BackoffMultiplier)
	if err != nil {
		return nil, err
	}
	exp := schedule.Exponential{Base: p.InitialBackoff, FactorPct: pct, FactorFrac: frac, Cap: p.MaxBackoff}
	return schedule.Intersect{
		A: schedule.Jittered{Inner: exp, LowPct: low, HighPct: high},
		B: schedule.Times{N: p.Attempts()},
	}, nil
}

// factorPct returns the multiplier as an Exponential's factor: whole
// percent and ten-thousandths of a percent (a millionth of the factor,
// the finest an Exponential holds), and whether that is exact.
func factorPct(m float64) (pct, frac int, exact bool, err error) {
	switch {
	case m < 1:
		return 0, 0, false, fieldError("backoffMultiplier", "is "+strconv.FormatFloat(m, 'g', -1, 64)+
			", below 1: A6 then shrinks the waits, and no schedule does that (Exponential only grows)")
	case m > maxMultiplier:
		return 0, 0, false, fieldError("backoffMultiplier", "is "+strconv.FormatFloat(m, 'g', -1, 64)+", above the largest convertible, 1000000")
	}
	ppm := math.Round(m * 1e6)
	n := int64(ppm)
	return int(n / schedule.PctFracs), int(n % schedule.PctFracs), math.Abs(m*1e6-ppm) <= 1e-9*ppm, nil
}

// Notes says where the schedule differs from what p literally says, one
// sentence each: a maxAttempts above 5, which A6 caps, and a multiplier
// that is not a whole millionth, which Schedule rounds. It is empty when
// the schedule is p to the letter.
func (p RetryPolicy) Notes() []string {
	var notes []string
	if p.MaxAttempts > MaxAttempts {
		notes = append(notes, "maxAttempts "+strconv.Itoa(p.MaxAttempts)+" is treated as 5, as gRFC A6 requires")
	}
	if pct, frac, exact, err := factorPct(p.BackoffMultiplier); err == nil && !exact {
		grows := string(schedule.AppendPercent(nil, pct, frac))
		notes = append(notes, "backoffMultiplier "+strconv.FormatFloat(p.BackoffMultiplier, 'g', -1, 64)+
			" is not a whole millionth: the schedule grows by "+grows+" instead, so its waits differ slightly from A6's")
	}
	return notes
}

// ErrNoEquivalent is what errors.Is finds in FromSchedule's error for a
// schedule that no retryPolicy expresses.
var ErrNoEquivalent = errors.New("no retryPolicy equivalent")

// FromSchedule returns the retry policy that waits as s does, and the
// jitter formula it follows: the inverse of RetryPolicy.Schedule. s must
// have Schedule's shape, with the operands of the Intersect in either
// order:
//
//	Intersect(Jittered(Exponential(base, factor, cap), low, high), Times(n))
//
// where low–high is 0–100% (FullJitter) or 80–120% (PlusMinus20) and n is
// 2 to 5. The policy retries UNAVAILABLE only, the default of package
// grpcretry; set RetryableStatusCodes to change it. Any other schedule
// gets an error that wraps ErrNoEquivalent and says what does not fit.
func FromSchedule(s schedule.Schedule) (RetryPolicy, Jitter, error) {
	if err := schedule.Validate(s); err != nil {
		return RetryPolicy{}, 0, fmt.Errorf("grpcconfig: %w", err)
	}
	in, ok := s.(schedule.Intersect)
	if !ok {
		return noEquivalent(s, "it is not an Intersect of a jittered Exponential and a Times")
	}
	a, b := in.A, in.B
	if _, ok := a.(schedule.Times); ok {
		a, b = b, a
	}
	times, ok := b.(schedule.Times)
	if !ok {
		return noEquivalent(s, "neither side of the Intersect is a Times, which maxAttempts needs")
	}
	jit, ok := a.(schedule.Jittered)
	if !ok {
		return noEquivalent(s, a.String()+" is not a Jittered Exponential, which A6's backoff is")
	}
	exp, ok := jit.Inner.(schedule.Exponential)
	if !ok {
		return noEquivalent(s, "the jitter is around "+jit.Inner.String()+", not an Exponential")
	}
	var j Jitter
	switch {
	case jit.LowFrac != 0 || jit.HighFrac != 0:
		return noEquivalent(s, "jitter "+jit.String()+" has fractions of a percent, which neither of A6's formulas has")
	case jit.LowPct == 0 && jit.HighPct == 100:
		j = FullJitter
	case jit.LowPct == 80 && jit.HighPct == 120:
		j = PlusMinus20
	default:
		return noEquivalent(s, "jitter "+strconv.Itoa(jit.LowPct)+"–"+strconv.Itoa(jit.HighPct)+
			"% is neither of A6's formulas (0–100% as first published, 80–120% as revised)")
	}
	switch {
	case times.N < 2:
		return noEquivalent(s, "Times(1) makes no retry, and maxAttempts must be at least 2")
	case times.N > MaxAttempts:
		return noEquivalent(s, "Times("+strconv.Itoa(times.N)+") allows more attempts than A6's cap of 5")
	}
	return RetryPolicy{
		MaxAttempts:          times.N,
		InitialBackoff:       exp.Base,
		MaxBackoff:           exp.Cap,
		BackoffMultiplier:    float64(exp.FactorPPM()) / 1e6, // exact to a millionth, as FactorFrac keeps it
		RetryableStatusCodes: []Code{Unavailable},
	}, j, nil
}

func noEquivalent(s schedule.Schedule, why string) (RetryPolicy, Jitter, error) {
	return RetryPolicy{}, 0, fmt.Errorf("grpcconfig: %v: %w: %s", s, ErrNoEquivalent, why)
}
