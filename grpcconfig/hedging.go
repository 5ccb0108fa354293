package grpcconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/recur-go/recur/schedule"
)

// HedgingPolicy is a method config's hedgingPolicy (gRFC A6): up to
// MaxAttempts copies of a call, the first at once and each next one
// HedgingDelay after the one before unless an answer has come. The first
// answer with a status that is OK, or not in NonFatalStatusCodes, ends the
// call and cancels the others; a non-fatal status starts the next copy at
// once. Its JSON form is the service config's:
//
//	{
//	  "maxAttempts": 4,
//	  "hedgingDelay": "0.5s",
//	  "nonFatalStatusCodes": ["UNAVAILABLE", "INTERNAL", "ABORTED"]
//	}
//
// A method config has a retryPolicy or a hedgingPolicy, never both.
type HedgingPolicy struct {
	// MaxAttempts is the most copies, the first included, as written: at
	// least 2. Attempts applies A6's cap of 5.
	MaxAttempts int
	// HedgingDelay is the time between the starts of two copies; zero
	// (the default) sends every copy at once. Not negative.
	HedgingDelay time.Duration
	// NonFatalStatusCodes are the codes that start the next copy at once
	// instead of ending the call; may be empty.
	NonFatalStatusCodes []Code
}

// Attempts returns the most copies the policy makes: MaxAttempts, capped
// at 5 as A6 requires.
func (p HedgingPolicy) Attempts() int { return min(p.MaxAttempts, MaxAttempts) }

// Validate checks the policy as gRPC does when it loads a service config,
// and names the first bad field.
func (p HedgingPolicy) Validate() error {
	switch {
	case p.MaxAttempts < 2:
		return fieldError("maxAttempts", "must be at least 2; got "+strconv.Itoa(p.MaxAttempts))
	case p.HedgingDelay < 0:
		return fieldError("hedgingDelay", "must not be negative; got "+quoted(p.HedgingDelay))
	}
	for i, c := range p.NonFatalStatusCodes {
		if int(c) >= NumCodes {
			return fieldError("nonFatalStatusCodes["+strconv.Itoa(i)+"]", "is "+c.String()+", which gRPC does not define")
		}
	}
	return nil
}

// Schedule returns the hedging delays as a schedule for retry.Hedge:
//
//	Intersect(Spaced(hedgingDelay), Times(attempts))
//
// or Times(attempts) alone for a zero delay, with attempts = p.Attempts().
// It returns an error for an invalid policy.
func (p HedgingPolicy) Schedule() (schedule.Schedule, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	times := schedule.Times{N: p.Attempts()}
	if p.HedgingDelay == 0 {
		return times, nil
	}
	return schedule.Intersect{A: schedule.Spaced{Every: p.HedgingDelay}, B: times}, nil
}

// HedgingFromSchedule returns the hedging policy of a schedule that
// HedgingPolicy.Schedule makes: Intersect(Spaced(d), Times(n)), either
// way round, or Times(n) alone for a zero delay, with n from 2 to 5. Its
// NonFatalStatusCodes is UNAVAILABLE, the one code that says the server
// did not handle the call; set it to change it. Any other schedule gets
// an error that wraps ErrNoEquivalent and says what does not fit.
func HedgingFromSchedule(s schedule.Schedule) (HedgingPolicy, error) {
	if err := schedule.Validate(s); err != nil {
		return HedgingPolicy{}, fmt.Errorf("grpcconfig: %w", err)
	}
	var every time.Duration
	times, ok := s.(schedule.Times)
	if !ok {
		in, isIn := s.(schedule.Intersect)
		if !isIn {
			return noHedging(s, "it is neither a Times nor an Intersect of a Spaced and a Times")
		}
		a, b := in.A, in.B
		if _, ok := a.(schedule.Times); ok {
			a, b = b, a
		}
		if times, ok = b.(schedule.Times); !ok {
			return noHedging(s, "neither side of the Intersect is a Times, which maxAttempts needs")
		}
		sp, isSpaced := a.(schedule.Spaced)
		if !isSpaced {
			return noHedging(s, a.String()+" is not a Spaced: hedgingDelay is one fixed delay")
		}
		every = sp.Every
	}
	switch {
	case times.N < 2:
		return noHedging(s, "Times(1) starts no second copy, and maxAttempts must be at least 2")
	case times.N > MaxAttempts:
		return noHedging(s, "Times("+strconv.Itoa(times.N)+") allows more copies than A6's cap of 5")
	}
	return HedgingPolicy{MaxAttempts: times.N, HedgingDelay: every, NonFatalStatusCodes: []Code{Unavailable}}, nil
}

func noHedging(s schedule.Schedule, why string) (HedgingPolicy, error) {
	return HedgingPolicy{}, fmt.Errorf("grpcconfig: %v: %w: %s", s, ErrNoEquivalent, why)
}

// jsonHedgingPolicy is HedgingPolicy's JSON form.
type jsonHedgingPolicy struct {
	MaxAttempts         int      `json:"maxAttempts"`
	HedgingDelay        duration `json:"hedgingDelay,omitempty"`
	NonFatalStatusCodes []Code   `json:"nonFatalStatusCodes,omitempty"`
}

// MarshalJSON writes the policy as a service config's hedgingPolicy, with
// the delay in protobuf's form ("0.500s"). It does not validate.
func (p HedgingPolicy) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonHedgingPolicy{
		MaxAttempts:         p.MaxAttempts,
		HedgingDelay:        duration(p.HedgingDelay),
		NonFatalStatusCodes: p.NonFatalStatusCodes,
	})
}

// UnmarshalJSON reads a service config's hedgingPolicy. Like gRPC, it
// ignores fields it does not know; it does not validate (Parse does). On a
// nil *HedgingPolicy it returns an error.
func (p *HedgingPolicy) UnmarshalJSON(b []byte) error {
	if p == nil {
		return errors.New("grpcconfig: UnmarshalJSON into a nil *HedgingPolicy")
	}
	var j jsonHedgingPolicy
	if err := json.Unmarshal(b, &j); err != nil {
		return jsonError(err)
	}
	*p = HedgingPolicy{
		MaxAttempts:         j.MaxAttempts,
		HedgingDelay:        time.Duration(j.HedgingDelay),
		NonFatalStatusCodes: j.NonFatalStatusCodes,
	}
	return nil
}
