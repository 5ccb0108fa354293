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

// Defaults for the zero fields of Config.
const (
	DefaultConsecutiveFailures = 5
	DefaultFailureRate         = 50 // percent
	DefaultSlowRate            = 50 // percent, once SlowCall is set
	DefaultMinCalls            = 20
	DefaultWindow              = 10 * time.Second
	DefaultHalfOpenProbes      = 1
	// MaxHalfOpenProbes is the largest HalfOpenProbes a breaker accepts.
	MaxHalfOpenProbes = 1000
	// MaxCountWindow is the largest CountWindow a breaker accepts.
	MaxCountWindow = 1 << 20
)

// DefaultOpenFor is the open duration when Config.OpenFor is nil: open for
// 5 s, twice as long after each failed probe, never more than 60 s.
var DefaultOpenFor schedule.Schedule = schedule.Exponential{Base: 5 * time.Second, FactorPct: 200, Cap: 60 * time.Second}

// Config says when a breaker opens and for how long. Every field has a
// default, so the zero Config is a usable breaker: it opens after 5
// failures in a row, or when half of at least 20 calls in the last 10 s
// failed; it stays open 5 s, then lets one probe through; a success closes
// it, a failure opens it again for twice as long, up to 60 s.
//
// A Config is a plain value: copy it, keep it in a struct, build many
// breakers from it. See the fields for what a negative value means;
// anything else out of range is an error from New.
type Config struct {
	// Name identifies the breaker in its errors, its log records and
	// OnStateChange. A Registry sets it to the target.
	Name string

	// ConsecutiveFailures opens the breaker after this many failures in a
	// row: the fast answer to a target that is plainly down. Zero means
	// 5; a negative value turns the rule off.
	ConsecutiveFailures int

	// FailureRate opens the breaker when at least this percentage of the
	// calls in the last Window failed, once there were at least MinCalls
	// of them: the answer to a target that fails often but not always.
	// Zero means 50; a negative value turns the rule off; more than 100
	// is an error.
	FailureRate int

	// SlowCall, when positive, counts a call that took SlowCall or longer
	// as slow, whatever its outcome, and turns on the slow-call rule: the
	// breaker opens when at least SlowRate percent of the calls in the
	// last Window were slow, once there were at least MinCalls of them.
	// A drowning target slows down before it fails, so this rule opens
	// earlier. A slow probe counts as a failed probe. Zero turns slow-call
	// detection off, and with it the clock reads that time each call.
	SlowCall time.Duration

	// SlowRate is the slow-call rule's threshold in percent. Zero means
	// 50; more than 100 or a negative value is an error. It is ignored
	// unless SlowCall is set.
	SlowRate int

	// MinCalls is how many calls the last Window must hold before the
	// rate rules judge it, so that 1 failure out of 1 call does not open
	// the breaker. Zero means 20; a negative value is an error.
	MinCalls int

	// CountWindow, when positive, makes the rate rules judge the last
	// CountWindow counted calls instead of the last Window of time
	// (Resilience4j's COUNT_BASED sliding window; Window is then unused).
	// MinCalls above CountWindow is taken as CountWindow. A count-based
	// window counts every call under the breaker's lock, so its closed
	// path is slower than the time-based one's. Zero means time-based;
	// negative or more than MaxCountWindow is an error.
	CountWindow int

	// Window is how far back the rate rules look. It is kept as 10
	// buckets of Window/10 each: the current bucket and the nine before
	// it, so it reaches back between 9/10 of Window and all of it, and
	// calls leave it a bucket at a time. Zero means 10 s; less than 10 ns
	// is an error.
	Window time.Duration

	// OpenFor is how long the breaker stays open: the k-th opening in a
	// row (each failed probe adds one) waits the schedule's k-th delay,
	// and closing starts the count again. It is stepped like a retry
	// schedule whose attempts take no time, measured from the first
	// opening, so Spaced and UpTo measure from there; jitter is drawn
	// from a seed that Random gives at each first opening. When the
	// schedule stops, the breaker keeps its last delay. Nil means
	// DefaultOpenFor; an invalid schedule, or one that stops before its
	// first delay, is an error.
	OpenFor schedule.Schedule

	// HalfOpenProbes is how many calls a half-open breaker lets through;
	// it refuses the rest at once. Once all of them are recorded, the
	// breaker opens again if their failure rate reaches FailureRate (any
	// failure, if the failure-rate rule is off) or, with SlowCall set,
	// their slow-call rate reaches SlowRate; otherwise it closes. This is
	// Resilience4j's permittedNumberOfCallsInHalfOpenState: with 10 probes
	// and the default 50%, 9 successes and 1 failure close the breaker.
	// A probe whose outcome counts nothing (Retryable, Neutral) frees its
	// place for another. Probes that have not all been recorded when the
	// open duration has passed again count as failed: the next call
	// reopens the breaker, so a caller that loses a Permit cannot keep it
	// half-open forever. Zero means 1; negative or more than
	// MaxHalfOpenProbes is an error.
	HalfOpenProbes int

	// TripWhen, if not nil, replaces the three rules above
	// (ConsecutiveFailures, FailureRate, SlowRate) while closed: the
	// breaker opens when it returns true. It is called with the window's
	// counts after every counted outcome, under the breaker's lock, so it
	// must be quick and must not call the breaker. It is gobreaker's
	// ReadyToTrip. Every counted outcome then takes the lock. FailureRate
	// and SlowRate still judge the half-open probes.
	TripWhen func(Counts) bool

	// Clock reads the time; nil means clockcap.Real(), which the breaker
	// reads through the monotonic clock alone. A closed breaker reads it
	// only to record failures and, on a busy breaker, about once every 256
	// successes (see package doc), unless SlowCall is set.
	Clock clockcap.Clock

	// Random gives the seed for OpenFor's jitter; nil means
	// randcap.Real().
	Random randcap.Random

	// Logger, if not nil, receives a record per transition: opening and
	// forced opening at Warn, the others at Info.
	Logger *slog.Logger

	// OnStateChange, if not nil, is called after each transition with the
	// breaker's name and the states before and after. It runs on the
	// goroutine whose call caused the transition, after the breaker's
	// lock is released, so it may call the breaker; two transitions in
	// quick succession may report concurrently.
	OnStateChange func(name string, from, to State)

	// Shared, if not nil, makes the breaker one of a fleet: every breaker
	// of the same Name joined to the same store shares its state, its
	// opening count (so OpenFor advances fleet-wide), its window and its
	// failure streak, and exactly HalfOpenProbes probes go out per
	// half-open spell across the fleet. Each instance still decides alone
	// while the store is unreachable. Package redisbreaker keeps the state
	// in Redis; see docs/fleet.md for the consistency it gives. The
	// closed path is unchanged: outcomes are counted locally and sent in
	// batches (SharedFlush). A breaker with a store runs a goroutine:
	// Close it when done. A Registry shares each target's breaker under
	// the target's name (Registry.Close closes them). CountWindow cannot
	// be used with it (an error).
	Shared Store

	// SharedFlush is how often the breaker sends its counts to Shared
	// and reads the fleet's back; a failure is sent at once (one exchange
	// in flight at a time, so failures batch while one is out). Zero
	// means DefaultSharedFlush (5 ms); a negative value means no
	// background goroutine at all: call Flush yourself (the goroutine
	// ticks in real time whatever the Clock; a test or a simulation on a
	// virtual clock flushes by hand). Ignored without Shared.
	SharedFlush time.Duration
}

// Resilience4jDefaults returns the Config that behaves as a Resilience4j
// circuit breaker built from CircuitBreakerConfig.ofDefaults(): a
// COUNT_BASED window of the last 100 calls, judged once it holds 100;
// open at a 50% failure rate or a 100% slow-call rate, a call being slow
// from 60 s; open for 60 s, then 10 half-open calls decide by the same
// rates. There is no consecutive-failure rule. Set Name, Clock and the
// rest on the result as needed.
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
	epoch      time.Time     // the clock's reading at New or NewRegistry; times are ns since it
	realClock  bool          // Clock is clockcap.Real(): read the monotonic clock alone
	locked     bool          // every counted outcome takes the lock
}

var errNoDelay = errors.New("breaker: OpenFor stops before its first delay")

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
	if s.OpenFor == nil {
		s.OpenFor = DefaultOpenFor
	}
	if err := schedule.Validate(s.OpenFor); err != nil {
		return settings{}, fmt.Errorf("breaker: Config.OpenFor: %w", err)
	}
	r := interp.Start(s.OpenFor, 0)
	d, ok := r.Next(0, 0)
	if !ok {
		return settings{}, errNoDelay
	}
	s.firstDelay = d
	if s.Shared != nil {
		if s.CountWindow > 0 {
			return bad("CountWindow", s.CountWindow, "cannot be shared (Config.Shared is set): use the time-based window")
		}
		s.SharedFlush = cmp.Or(s.SharedFlush, DefaultSharedFlush)
	}
	if s.Clock == nil {
		s.Clock = clockcap.Real()
	}
	if s.Random == nil {
		s.Random = randcap.Real()
	}
	s.realClock = s.Clock == clockcap.Real()
	s.epoch = s.Clock.Now()
	s.locked = s.CountWindow > 0 || s.TripWhen != nil
	return s, nil
}
