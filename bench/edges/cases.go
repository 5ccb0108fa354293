package edges

import (
	"math/rand/v2"
	"time"

	"github.com/avast/retry-go/v4"
	"github.com/cenkalti/backoff/v5"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"github.com/hashicorp/go-retryablehttp"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
	goretry "github.com/sethvargo/go-retry"
)

// The probes back off from 100ms, doubling. The jittered ones are set up
// for full jitter as in the delay benchmark (see ../delay_test.go): some
// libraries need half the base for that.
const (
	base = 100 * time.Millisecond
	half = base / 2
)

// Steps are the steps the table reports.
var Steps = []int64{100, 10_000, 10_000_000}

// addDur returns a+b for non-negative a and b, held at the largest
// Duration where the sum would overflow (as recur's own clocks add). It is
// a copy of the main module's internal sat.AddDur, which a module of its
// own cannot import.
func addDur(a, b time.Duration) time.Duration {
	if s := a + b; s >= a {
		return s
	}
	return schedule.MaxDuration
}

// just wraps a stepper that needs no stop.
func just(next func() time.Duration) (func() time.Duration, func()) { return next, nil }

func recurCase(config string, s schedule.Schedule) Case {
	return Case{Lib: "recur", Config: config, Cap: "max (Cap is required: there is no uncapped form)", New: func() (func() time.Duration, func()) {
		r := interp.Start(s, rand.Uint64())
		var now time.Duration
		return just(func() time.Duration {
			d, ok := r.Next(now, now)
			if !ok {
				panic("schedule stopped")
			}
			now = addDur(now, d)
			return d
		})
	}}
}

func cenkaltiCase(config, cap string, b backoff.ExponentialBackOff) Case {
	return Case{Lib: "cenkalti", Config: config, Cap: cap, New: func() (func() time.Duration, func()) {
		b := b
		b.Reset()
		return just(b.NextBackOff)
	}}
}

func sethvargoCase(config, cap string, mk func() goretry.Backoff) Case {
	return Case{Lib: "sethvargo", Config: config, Cap: cap, New: func() (func() time.Duration, func()) {
		b := mk()
		return just(func() time.Duration {
			d, stop := b.Next()
			if stop {
				panic("backoff stopped")
			}
			return d
		})
	}}
}

// avastCase calls an avast delay function with n = 1, 2, … as retry.Do
// does, on a Config with retry.Do's defaults (Delay 100ms, MaxJitter
// 100ms) changed by delay and maxDelay (0: not set), and then applies
// MaxDelay the way retry.Do's unexported delay function does
// (if maxDelay > 0 && d > maxDelay { d = maxDelay }).
func avastCase(config, cap string, f retry.DelayTypeFunc, delay, maxDelay time.Duration) Case {
	return Case{Lib: "avast", Config: config, Cap: cap, New: func() (func() time.Duration, func()) {
		c := avastConfig(delay, maxDelay)
		var n uint
		return just(func() time.Duration {
			n++
			d := f(n, nil, c)
			if maxDelay > 0 && d > maxDelay {
				d = maxDelay
			}
			return d
		})
	}}
}

func avastConfig(delay, maxDelay time.Duration) *retry.Config {
	var c retry.Config
	retry.Delay(delay)(&c)
	retry.MaxJitter(100 * time.Millisecond)(&c)
	if maxDelay > 0 {
		retry.MaxDelay(maxDelay)(&c)
	}
	return &c
}

// retryablehttpCase calls retryablehttp's DefaultBackoff with attemptNum =
// 0, 1, … as Client.Do does.
func retryablehttpCase(config, cap string, min, max time.Duration) Case {
	return Case{Lib: "retryablehttp", Config: config, Cap: cap, New: func() (func() time.Duration, func()) {
		var n int
		return just(func() time.Duration {
			d := retryablehttp.DefaultBackoff(min, max, n, nil)
			n++
			return d
		})
	}}
}

func failsafeCase(config, cap string, b func() retrypolicy.Builder[int]) Case {
	return Case{Lib: "failsafe-go", Config: config, Cap: cap, New: func() (func() time.Duration, func()) {
		return FailsafeDelays(b())
	}}
}

const maxD = schedule.MaxDuration

func (c Case) why(note string) Case { c.Note = note; return c }

// overflow is the Go spec's rule that the notes below lean on: a
// float-to-integer conversion whose value does not fit gives an
// implementation-dependent result; on amd64 it is math.MinInt64 (arm64
// saturates instead, so these rows differ there).
const overflow = "time.Duration(f) of a float64 f ≥ 2⁶³ is out of range: math.MinInt64 on amd64"

// Cases are the probes of the table, library by library: recur first,
// then each peer with plain exponential backoff and with full jitter, each
// with no cap and with a cap at the largest Duration. Each Note says why,
// from the library's source at the version in go.mod.
func Cases() []Case {
	const none, max = "none", "max"
	return []Case{
		recurCase("Exponential{Base: 100ms, FactorPct: 200, Cap: max}", schedule.Exponential{Base: base, FactorPct: 200, Cap: maxD}).
			why("min(Cap, d·200/100) in 128-bit integer arithmetic: reaches Cap exactly and stays there"),
		recurCase("FullJitter(100ms, max)", schedule.FullJitter(base, maxD)).
			why("the inner delay saturates at Cap; the jitter scales it by a draw in [0, 100%] in 128-bit arithmetic"),

		cenkaltiCase("ExponentialBackOff{InitialInterval: 100ms, Multiplier: 2}", "none (MaxInterval 0, the zero value)",
			backoff.ExponentialBackOff{InitialInterval: base, Multiplier: 2}).
			why("MaxInterval 0 is a cap of 0: the interval is set to 0 after each step and NextBackOff restarts it at InitialInterval, so it never grows"),
		cenkaltiCase("ExponentialBackOff{InitialInterval: 100ms, Multiplier: 2, MaxInterval: max}", max,
			backoff.ExponentialBackOff{InitialInterval: base, Multiplier: 2, MaxInterval: maxD}).
			why("the interval is compared with MaxInterval/Multiplier before it is multiplied, so it saturates"),
		cenkaltiCase("ExponentialBackOff{InitialInterval: 50ms, Multiplier: 2, RandomizationFactor: 1}", "none (MaxInterval 0, the zero value)",
			backoff.ExponentialBackOff{InitialInterval: half, Multiplier: 2, RandomizationFactor: 1}).
			why("as above, never grows: a draw in [0, 100ms] every time"),
		cenkaltiCase("ExponentialBackOff{InitialInterval: 50ms, Multiplier: 2, RandomizationFactor: 1, MaxInterval: max}", max,
			backoff.ExponentialBackOff{InitialInterval: half, Multiplier: 2, RandomizationFactor: 1, MaxInterval: maxD}).
			why("the interval saturates, then interval·(1 ± factor) is drawn in float64, up to 2·max; " + overflow + ", so about half the draws are negative"),

		sethvargoCase("NewExponential(100ms)", none, func() goretry.Backoff { return goretry.NewExponential(base) }).
			why("base << attempt; the first shift that is not positive returns math.MaxInt64 from then on"),
		sethvargoCase("WithCappedDuration(max, NewExponential(100ms))", max, func() goretry.Backoff {
			return goretry.WithCappedDuration(maxD, goretry.NewExponential(base))
		}).why("as above"),
		sethvargoCase("WithFullJitter(NewExponential(100ms))", none, func() goretry.Backoff {
			return goretry.WithFullJitter(goretry.NewExponential(base))
		}).why("rand.Int64N(d) of the saturated delay: a draw in [0, max)"),
		sethvargoCase("WithFullJitter(WithCappedDuration(max, NewExponential(100ms)))", max, func() goretry.Backoff {
			return goretry.WithFullJitter(goretry.WithCappedDuration(maxD, goretry.NewExponential(base)))
		}).why("as above"),

		avastCase("BackOffDelay, Delay(100ms)", none, retry.BackOffDelay, base, 0).
			why("Delay << min(n−1, 62 − ⌊log₂ Delay⌋): held at 100ms·2³⁶ ≈ 218 y, never max"),
		avastCase("BackOffDelay, Delay(100ms), MaxDelay(max)", max, retry.BackOffDelay, base, maxD).
			why("as above; MaxDelay only lowers"),
		avastCase("FullJitterBackoffDelay, Delay(50ms)", none, retry.FullJitterBackoffDelay, half, 0).
			why("the ceiling Delay·2ⁿ is a float64; from n = 38 it is ≥ 2⁶³ and int64(ceiling) is out of range (math.MinInt64 on amd64), so rand.Int63n panics"),
		avastCase("FullJitterBackoffDelay, Delay(50ms), MaxDelay(max)", max, retry.FullJitterBackoffDelay, half, maxD).
			why("the cap float64(max) rounds up to 2⁶³, so the capped ceiling converts out of range the same way"),
		avastCase("default: CombineDelay(BackOffDelay, RandomDelay), Delay(100ms), MaxJitter(100ms)", none,
			retry.CombineDelay(retry.BackOffDelay, retry.RandomDelay), base, 0).
			why("BackOffDelay held at ≈ 218 y plus a draw in [0, 100ms); CombineDelay adds in uint64 and clamps at max"),

		retryablehttpCase("DefaultBackoff(100ms, 0, n, nil)", "none (RetryWaitMax 0, the zero value)", base, 0).
			why("the wait is capped at RetryWaitMax, so a zero RetryWaitMax makes every wait 0 (NewClient sets 30s; a Client{} literal does not)"),
		retryablehttpCase("DefaultBackoff(100ms, max, n, nil)", max, base, maxD).
			why("a float64 product; when time.Duration(mult) does not round-trip, the wait is max: saturates"),

		failsafeCase("NewBuilder().WithBackoff(100ms, 0)", "none (maxDelay 0)", func() retrypolicy.Builder[int] {
			return retrypolicy.NewBuilder[int]().WithBackoff(base, 0)
		}).why("backoff applies only when maxDelay ≠ 0: WithBackoff(d, 0) is a fixed delay"),
		failsafeCase("NewBuilder().WithBackoff(100ms, max)", max, func() retrypolicy.Builder[int] {
			return retrypolicy.NewBuilder[int]().WithBackoff(base, maxD)
		}).why("the next delay is time.Duration(float64(last)·2); " + overflow + ", min(that, maxDelay) stays negative, and the executor clamps the delay to 0 — for every later step too: a retry loop with no wait"),
		failsafeCase("NewBuilder().WithBackoff(50ms, 0).WithJitterFactor(1)", "none (maxDelay 0)", func() retrypolicy.Builder[int] {
			return retrypolicy.NewBuilder[int]().WithBackoff(half, 0).WithJitterFactor(1)
		}).why("a fixed 50ms with jitter factor 1: a draw in [0, 100ms]"),
		failsafeCase("NewBuilder().WithBackoff(50ms, max).WithJitterFactor(1)", max, func() retrypolicy.Builder[int] {
			return retrypolicy.NewBuilder[int]().WithBackoff(half, maxD).WithJitterFactor(1)
		}).why("as WithBackoff(100ms, max): zero from step 39 on, and at step 38 too when the jittered draw there passes 2⁶³"),
	}
}

// ZeroBases are the zero-base probes: each library's exponential backoff
// (and its full-jitter form where the two differ) with a base of 0.
func ZeroBases() []ZeroBase {
	take := func(n int, next func() time.Duration) []time.Duration {
		out := make([]time.Duration, n)
		for i := range out {
			out[i] = next()
		}
		return out
	}
	stepper := func(c Case) func(int) ([]time.Duration, error) {
		return func(n int) ([]time.Duration, error) {
			next, stop := c.New()
			if stop != nil {
				defer stop()
			}
			return take(n, next), nil
		}
	}
	return []ZeroBase{
		{Lib: "recur", Config: "FullJitter(0, 10s)", Note: "schedule.Validate names the bad node; interp.Start on an invalid schedule stops at the first decision", Try: func(n int) ([]time.Duration, error) {
			s := schedule.FullJitter(0, 10*time.Second)
			if err := schedule.Validate(s); err != nil {
				return nil, err
			}
			r := interp.Start(s, 1)
			return take(n, func() time.Duration { d, _ := r.Next(0, 0); return d }), nil
		}},
		{Lib: "cenkalti", Config: "ExponentialBackOff{Multiplier: 2, RandomizationFactor: 0.5, MaxInterval: 10s}", Note: "an interval of 0 stays 0",
			Try: stepper(cenkaltiCase("", "", backoff.ExponentialBackOff{Multiplier: 2, RandomizationFactor: 0.5, MaxInterval: 10 * time.Second}))},
		{Lib: "sethvargo", Config: "NewExponential(0)", Note: "NewExponential panics on a base ≤ 0", Try: func(n int) ([]time.Duration, error) {
			b := goretry.NewExponential(0)
			return take(n, func() time.Duration { d, _ := b.Next(); return d }), nil
		}},
		{Lib: "avast", Config: "default (CombineDelay(BackOffDelay, RandomDelay)), Delay(0)", Note: "BackOffDelay writes Delay = 1ns into the Config; RandomDelay adds up to MaxJitter (100ms), so the delays look plausible, but the exponential part stays below 100ms until step 28",
			Try: stepper(avastCase("", "", retry.CombineDelay(retry.BackOffDelay, retry.RandomDelay), 0, 0))},
		{Lib: "avast", Config: "BackOffDelay, Delay(0)", Note: "Delay 0 silently becomes 1ns",
			Try: stepper(avastCase("", "", retry.BackOffDelay, 0, 0))},
		{Lib: "avast", Config: "FullJitterBackoffDelay, Delay(0), MaxDelay(10s)", Note: "a ceiling of 0 returns 0",
			Try: stepper(avastCase("", "", retry.FullJitterBackoffDelay, 0, 10*time.Second))},
		{Lib: "retryablehttp", Config: "DefaultBackoff(0, 30s, n, nil) (RetryWaitMin 0)", Note: "0·2ⁿ = 0",
			Try: stepper(retryablehttpCase("", "", 0, 30*time.Second))},
		{Lib: "failsafe-go", Config: "NewBuilder().WithBackoff(0, 10s)", Note: "a Delay of 0 means no delay to the executor",
			Try: stepper(failsafeCase("", "", func() retrypolicy.Builder[int] { return retrypolicy.NewBuilder[int]().WithBackoff(0, 10*time.Second) }))},
	}
}
