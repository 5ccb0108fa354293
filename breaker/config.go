package breaker

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/schedule"
)

// Defaults for the zero fields of Config, and the largest values it takes.
const (
	DefaultConsecutiveFailures = 5
	DefaultFailureRate         = 50 // percent
	DefaultSlowRate            = 50 // percent
	DefaultMinCalls            = 20
	DefaultWindow              = 10 * time.Second
	DefaultHalfOpenProbes      = 1
	MaxHalfOpenProbes          = 1000    // the largest HalfOpenProbes
	MaxCountWindow             = 1 << 20 // the largest CountWindow
)

// DefaultOpenFor is the open duration when Config.OpenFor is nil: 5 s,
// twice as long after each failed probe, at most 60 s.
var DefaultOpenFor schedule.Schedule = schedule.Exponential{Base: 5 * time.Second, FactorPct: 200, Cap: 60 * time.Second}

// Config says when a breaker opens and for how long. Every field has a
// default, so the zero Config is a usable breaker: it opens after 5
// failures in a row, or when half of at least 20 calls in the last 10 s
// failed; it stays open 5 s, then lets one probe through; a success closes
// it, a failure opens it again for twice as long, up to 60 s. Each field
// says what a negative value means; anything else out of range is an
// error from New. docs/breaker.md explains the choices.
type Config struct {
	// Name names the breaker in its errors, logs and OnStateChange; a
	// Registry sets it to the target.
	Name string
	// ConsecutiveFailures opens the breaker after this many failures in a
	// row. Zero means 5; negative turns the rule off.
	ConsecutiveFailures int
	// FailureRate opens the breaker when at least this percentage of the
	// window's calls failed, once it holds MinCalls. Zero means 50;
	// negative turns the rule off; above 100 is an error.
	FailureRate int
	// SlowCall, if positive, makes a call of SlowCall or longer slow,
	// whatever its outcome, and opens the breaker when at least SlowRate
	// percent of the window's calls were slow, once it holds MinCalls
	// (the probes' rate: see HalfOpenProbes). Zero turns slow calls off,
	// and with them two clock reads per call; negative is an error.
	SlowCall time.Duration
	// SlowRate is the slow-call threshold in percent, used with SlowCall.
	// Zero means 50; negative or above 100 is an error.
	SlowRate int
	// MinCalls is how many calls the window must hold before the rate
	// rules judge it. Zero means 20; negative is an error.
	MinCalls int
	// CountWindow, if positive, makes the window the last CountWindow
	// counted calls instead of the last Window of time (Resilience4j's
	// COUNT_BASED), MinCalls being at most CountWindow; every counted call
	// then takes the breaker's lock. Zero means time-based; negative, above
	// MaxCountWindow or with Shared is an error.
	CountWindow int
	// Window is how far back the rate rules look: 10 buckets of Window/10,
	// the current one and nine before, so calls leave a bucket at a time.
	// Zero means 10 s; negative or under 10 ns is an error.
	Window time.Duration
	// OpenFor gives the open durations: the k-th opening in a row (each
	// failed probe adds one; closing starts again) waits its k-th delay,
	// stepped as a retry schedule of instant attempts from the first
	// opening (Spaced and UpTo measure from there), jittered by a seed
	// Random gives then; once it stops, its last delay repeats. Nil means
	// DefaultOpenFor; an invalid schedule, or one that stops before its
	// first delay, is an error.
	OpenFor schedule.Schedule
	// HalfOpenProbes is how many calls a half-open breaker lets through,
	// refusing the rest. Once all are recorded, it opens again if their
	// failure rate reaches FailureRate (any failure, with that rule off)
	// or their slow-call rate SlowRate, and closes otherwise. A probe that
	// counts nothing frees its place; probes not all recorded when the
	// open duration has passed again count as failed. Zero means 1;
	// negative or above MaxHalfOpenProbes is an error.
	HalfOpenProbes int
	// TripWhen, if not nil, replaces the three rules while closed: the
	// breaker opens when it returns true. It gets the window's counts after
	// every counted outcome, which then takes the lock, and runs under the
	// lock, so it must be quick and must not call the breaker. The rate
	// rules still judge the probes.
	TripWhen func(Counts) bool
	// Clock reads the time; nil means clockcap.Real(), read through the
	// monotonic clock alone.
	Clock clockcap.Clock
	// Random seeds OpenFor's jitter; nil means randcap.Real().
	Random randcap.Random
	// Logger, if not nil, gets a record per transition: opening and forced
	// opening at Warn, the others at Info.
	Logger *slog.Logger
	// OnStateChange, if not nil, is called after each transition with the
	// name and the states before and after, on the goroutine that caused
	// it, outside the breaker's lock (it may call the breaker); two quick
	// transitions may report concurrently.
	OnStateChange func(name string, from, to State)
	// Shared, if not nil, makes the breaker one of a fleet: the breakers of
	// one Name joined to the store share their state, openings, window and
	// failure streak, and send HalfOpenProbes probes per half-open spell in
	// all; while the store is unreachable each decides alone. Outcomes are
	// counted as without it and sent in batches by a goroutine that Close
	// stops. See docs/fleet.md.
	Shared Store
	// SharedFlush is how often the breaker sends its counts to Shared and
	// reads the fleet's; a failure goes at once, or with the next exchange
	// while one is out. Zero means DefaultSharedFlush; negative means no
	// goroutine: call Flush (the goroutine ticks in real time, so a test on
	// a virtual clock flushes by hand). Ignored without Shared.
	SharedFlush time.Duration
}

// Resilience4jDefaults returns the Config of a Resilience4j breaker made by
// CircuitBreakerConfig.ofDefaults(): a window of the last 100 calls,
// judged once full; open at 50% failures or 100% slow calls (60 s or
// more), for 60 s; then 10 probes judged by the same rates; no
// consecutive-failure rule.
func Resilience4jDefaults() Config {
	return Config{
		ConsecutiveFailures: -1,
		FailureRate:         50,
		SlowCall:            60 * time.Second,
		SlowRate:            100,
		CountWindow:         100,
		MinCalls:            100,
		HalfOpenProbes:      10,
		OpenFor:             schedule.Exponential{Base: 60 * time.Second, FactorPct: 100, Cap: 60 * time.Second},
	}
}

// settings is a Config with its defaults filled in and checked.
type settings struct {
	Config
	firstDelay time.Duration // OpenFor's first delay for seed 0
	epoch      time.Time     // the clock at New or NewRegistry; times are ns since it
	realClock  bool          // Clock is clockcap.Real(): read the monotonic clock alone
	locked     bool          // every counted outcome takes the lock
}

// resolve fills in the defaults of c and checks it.
func resolve(c Config) (settings, error) {
	s := settings{Config: c}
	bad := func(field string, v any, why string) (settings, error) {
		return settings{}, fmt.Errorf("breaker: Config.%s = %v %s", field, v, why)
	}
	switch {
	case s.FailureRate > 100:
		return bad("FailureRate", s.FailureRate, "is above 100 (percent)")
	case s.SlowCall < 0:
		return bad("SlowCall", s.SlowCall, "is negative")
	case s.SlowRate < 0 || s.SlowRate > 100:
		return bad("SlowRate", s.SlowRate, "is not a percentage from 0 to 100")
	case s.MinCalls < 0:
		return bad("MinCalls", s.MinCalls, "is negative")
	case s.CountWindow < 0 || s.CountWindow > MaxCountWindow:
		return bad("CountWindow", s.CountWindow, fmt.Sprintf("is not from 0 to %d", MaxCountWindow))
	case s.Window < 0:
		return bad("Window", s.Window, "is negative")
	case s.Window > 0 && s.Window < 10:
		return bad("Window", s.Window, "is shorter than 10ns")
	case s.HalfOpenProbes < 0 || s.HalfOpenProbes > MaxHalfOpenProbes:
		return bad("HalfOpenProbes", s.HalfOpenProbes, fmt.Sprintf("is not from 1 to %d", MaxHalfOpenProbes))
	}
	s.ConsecutiveFailures = cmp.Or(s.ConsecutiveFailures, DefaultConsecutiveFailures)
	s.FailureRate = cmp.Or(s.FailureRate, DefaultFailureRate)
	s.SlowRate = cmp.Or(s.SlowRate, DefaultSlowRate)
	s.MinCalls = cmp.Or(s.MinCalls, DefaultMinCalls)
	if s.CountWindow > 0 {
		s.MinCalls = min(s.MinCalls, s.CountWindow)
	}
	s.Window = cmp.Or(s.Window, DefaultWindow)
	s.HalfOpenProbes = cmp.Or(s.HalfOpenProbes, DefaultHalfOpenProbes)
	s.OpenFor = cmp.Or(s.OpenFor, DefaultOpenFor)
	if err := schedule.Validate(s.OpenFor); err != nil {
		return settings{}, fmt.Errorf("breaker: Config.OpenFor: %w", err)
	}
	r := interp.Start(s.OpenFor, 0)
	var ok bool
	if s.firstDelay, ok = r.Next(0, 0); !ok {
		return settings{}, errors.New("breaker: OpenFor stops before its first delay")
	}
	if s.Shared != nil && s.CountWindow > 0 {
		return bad("CountWindow", s.CountWindow, "cannot be shared (Config.Shared is set): use the time-based window")
	}
	s.SharedFlush = cmp.Or(s.SharedFlush, DefaultSharedFlush) // read only with Shared
	s.Clock, s.Random = cmp.Or(s.Clock, clockcap.Real()), cmp.Or(s.Random, randcap.Real())
	s.realClock = s.Clock == clockcap.Real()
	s.epoch = s.Clock.Now()
	s.locked = s.CountWindow > 0 || s.TripWhen != nil
	return s, nil
}
