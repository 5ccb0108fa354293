package bench

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/avast/retry-go/v4"
	"github.com/cenkalti/backoff/v5"
	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	recur "github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	goretry "github.com/sethvargo/go-retry"
)

// The runners' work, three ways:
//
//   - first try: a call whose first attempt succeeds, under a policy of at
//     most 3 attempts with full-jitter backoff from 100ms capped at 10s
//     (the policy matters only for what a library builds before the
//     first attempt);
//   - three failures: fail, fail, fail, succeed, under a policy of at most
//     4 attempts with no wait between them;
//   - zero-delay retry: one call whose operation fails b.N times and then
//     succeeds, under a policy with no wait and no attempt limit: the
//     marginal cost of one retry.
//
// Every library gets the operation in its own signature (with or without a
// context), and whatever a library's docs say must be made per call (a
// stateful backoff) is made per call; whatever can be shared (an immutable
// policy, an option list) is made once, outside the loop. A library's
// per-call constructions are part of what a user pays.

// caller makes one call of f's operation through a library, configured as
// its runnerLib entry says, passing the method of f that has the library's
// own signature.
type caller func(f *flaky) (int, error)

// flaky is the operation: it fails its first fails attempts with errFlaky
// and then succeeds, returning the number of attempts. Its methods are the
// same operation in each library's signature, so no library gets an
// adapter the others do not.
type flaky struct{ fails, n int }

func (f *flaky) attempt() (int, error) {
	if f.n++; f.n <= f.fails {
		return 0, errFlaky
	}
	return f.n, nil
}

// attemptCtx is attempt for the libraries that pass a context.
func (f *flaky) attemptCtx(context.Context) (int, error) { return f.attempt() }

// attemptRetryable is attemptCtx for sethvargo, which retries only the
// errors wrapped by its RetryableError: the error is wrapped once, up front.
func (f *flaky) attemptRetryable(context.Context) (int, error) {
	v, err := f.attempt()
	if err != nil {
		err = errRetryable
	}
	return v, err
}

// runnerLib is one library's configuration of the three kinds of work.
type runnerLib struct {
	lib string
	// Configurations, as written in docs/benchmarks.md.
	firstTry, zeroDelay, unlimited string
	// newFirstTry, newZeroDelay and newUnlimited return a caller for each
	// kind of work; the setup they do runs once.
	newFirstTry, newZeroDelay, newUnlimited func() caller
}

var (
	errFlaky     = errors.New("flaky")
	errRetryable = goretry.RetryableError(errFlaky) // sethvargo retries only errors it wrapped
	fullJitter3  = schedule.Intersect{A: schedule.FullJitter(base, ceil), B: schedule.Times{N: 3}}
)

var runnerLibs = []runnerLib{
	{
		lib:       "recur",
		firstTry:  "retry.RetryWhile(ctx, retry.Options{}, Intersect(FullJitter(100ms, 10s), Times(3)), nil, op); the schedule is a value made once",
		zeroDelay: "retry.RetryWhile(ctx, retry.Options{}, Times(4), nil, op)",
		unlimited: "retry.RetryWhile(ctx, retry.Options{}, Forever, nil, op)",
		newFirstTry: func() caller {
			return recurCaller(fullJitter3)
		},
		newZeroDelay: func() caller { return recurCaller(schedule.Times{N: 4}) },
		newUnlimited: func() caller { return recurCaller(schedule.Forever{}) },
	},
	{
		lib:       "cenkalti",
		firstTry:  "backoff.Retry(ctx, f.attempt, WithBackOff(&ExponentialBackOff{InitialInterval: 50ms, Multiplier: 2, MaxInterval: 5s, RandomizationFactor: 1}), WithMaxTries(3), WithMaxElapsedTime(0)); the ExponentialBackOff is stateful, so made per call",
		zeroDelay: "backoff.Retry(ctx, f.attempt, WithBackOff(&ZeroBackOff{}), WithMaxTries(4), WithMaxElapsedTime(0))",
		unlimited: "backoff.Retry(ctx, f.attempt, WithBackOff(&ZeroBackOff{}), WithMaxElapsedTime(0)) (MaxTries 0: no limit)",
		newFirstTry: func() caller {
			ctx := context.Background()
			return func(f *flaky) (int, error) {
				b := &backoff.ExponentialBackOff{InitialInterval: base / 2, Multiplier: 2, MaxInterval: ceil / 2, RandomizationFactor: 1}
				return backoff.Retry(ctx, f.attempt, backoff.WithBackOff(b), backoff.WithMaxTries(3), backoff.WithMaxElapsedTime(0))
			}
		},
		newZeroDelay: func() caller {
			ctx := context.Background()
			return func(f *flaky) (int, error) {
				return backoff.Retry(ctx, f.attempt, backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(4), backoff.WithMaxElapsedTime(0))
			}
		},
		newUnlimited: func() caller {
			ctx := context.Background()
			return func(f *flaky) (int, error) {
				return backoff.Retry(ctx, f.attempt, backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxElapsedTime(0))
			}
		},
	},
	{
		lib:       "avast",
		firstTry:  "retry.DoWithData(op, opts...) with opts = Attempts(3), Delay(50ms), MaxDelay(10s), DelayType(FullJitterBackoffDelay), made once",
		zeroDelay: "retry.DoWithData(op, opts...) with opts = Attempts(4), Delay(0), DelayType(FixedDelay)",
		unlimited: "retry.DoWithData(op, opts...) with opts = Attempts(0) (no limit), Delay(0), DelayType(FixedDelay)",
		newFirstTry: func() caller {
			return avastCaller(retry.Attempts(3), retry.Delay(base/2), retry.MaxDelay(ceil), retry.DelayType(retry.FullJitterBackoffDelay))
		},
		newZeroDelay: func() caller {
			return avastCaller(retry.Attempts(4), retry.Delay(0), retry.DelayType(retry.FixedDelay))
		},
		newUnlimited: func() caller {
			return avastCaller(retry.Attempts(0), retry.Delay(0), retry.DelayType(retry.FixedDelay))
		},
	},
	{
		lib:       "sethvargo",
		firstTry:  "retry.DoValue(ctx, WithMaxRetries(2, WithFullJitter(WithCappedDuration(10s, NewExponential(100ms)))), op); the backoff is stateful, so made per call",
		zeroDelay: "retry.DoValue(ctx, WithMaxRetries(3, BackoffFunc(zero)), op), the op's error wrapped once by RetryableError (NewConstant(0) panics)",
		unlimited: "retry.DoValue(ctx, BackoffFunc(zero), op)",
		newFirstTry: func() caller {
			ctx := context.Background()
			return func(f *flaky) (int, error) {
				b := goretry.WithMaxRetries(2, goretry.WithFullJitter(goretry.WithCappedDuration(ceil, goretry.NewExponential(base))))
				return goretry.DoValue(ctx, b, f.attemptRetryable)
			}
		},
		newZeroDelay: func() caller {
			ctx := context.Background()
			return func(f *flaky) (int, error) {
				return goretry.DoValue(ctx, goretry.WithMaxRetries(3, goretry.BackoffFunc(zeroBackoff)), f.attemptRetryable)
			}
		},
		newUnlimited: func() caller {
			ctx := context.Background()
			return func(f *flaky) (int, error) {
				return goretry.DoValue(ctx, goretry.BackoffFunc(zeroBackoff), f.attemptRetryable)
			}
		},
	},
	{
		lib:       "failsafe",
		firstTry:  "failsafe.With(policy).Get(op) with policy = retrypolicy.NewBuilder[int]().WithMaxAttempts(3).WithBackoff(50ms, 5s).WithJitterFactor(1).Build(); policy and executor made once",
		zeroDelay: "failsafe.With(policy).Get(op) with policy = retrypolicy.NewBuilder[int]().WithMaxAttempts(4).Build() (no delay)",
		unlimited: "failsafe.With(policy).Get(op) with policy = retrypolicy.NewBuilder[int]().WithMaxRetries(-1).Build() (no delay, no limit)",
		newFirstTry: func() caller {
			return failsafeCaller(retrypolicy.NewBuilder[int]().WithMaxAttempts(3).WithBackoff(base/2, ceil/2).WithJitterFactor(1).Build())
		},
		newZeroDelay: func() caller {
			return failsafeCaller(retrypolicy.NewBuilder[int]().WithMaxAttempts(4).Build())
		},
		newUnlimited: func() caller {
			return failsafeCaller(retrypolicy.NewBuilder[int]().WithMaxRetries(-1).Build())
		},
	},
}

func recurCaller(s schedule.Schedule) caller {
	ctx := context.Background()
	return func(f *flaky) (int, error) {
		return recur.RetryWhile(ctx, recur.Options{}, s, nil, f.attemptCtx)
	}
}

func avastCaller(opts ...retry.Option) caller {
	return func(f *flaky) (int, error) { return retry.DoWithData(f.attempt, opts...) }
}

func failsafeCaller(p retrypolicy.RetryPolicy[int]) caller {
	ex := failsafe.With[int](p)
	return func(f *flaky) (int, error) { return ex.Get(f.attempt) }
}

func zeroBackoff() (time.Duration, bool) { return 0, false }

var sinkInt int

// BenchmarkFirstTry measures a call whose first attempt succeeds; the
// direct row calls the operation itself, the floor.
func BenchmarkFirstTry(b *testing.B) {
	for _, l := range runnerLibs {
		b.Run("lib="+l.lib, func(b *testing.B) { benchCalls(b, l.newFirstTry(), 0) })
	}
	b.Run("lib=direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f := flaky{}
			v, err := f.attempt()
			if err != nil || v != 1 {
				b.Fatal(v, err)
			}
			sinkInt += v
		}
	})
}

// BenchmarkThreeFailures measures a whole call that fails three times and
// then succeeds, with no wait between attempts; the direct row is a plain
// loop of four attempts.
func BenchmarkThreeFailures(b *testing.B) {
	for _, l := range runnerLibs {
		b.Run("lib="+l.lib, func(b *testing.B) { benchCalls(b, l.newZeroDelay(), 3) })
	}
	b.Run("lib=direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f := flaky{fails: 3}
			v, err := f.attempt()
			for err != nil {
				v, err = f.attempt()
			}
			sinkInt += v
		}
	})
}

// benchCalls makes calls whose operation fails fails times and then
// succeeds.
func benchCalls(b *testing.B, call caller, fails int) {
	f := &flaky{fails: fails} // made once: the harness allocates nothing per call
	b.ReportAllocs()
	for b.Loop() {
		f.n = 0
		v, err := call(f)
		if err != nil || v != fails+1 {
			b.Fatal(v, err)
		}
		sinkInt += v
	}
}

// BenchmarkZeroDelayRetry measures the marginal cost of one retry with no
// wait: one call whose operation fails b.N times and then succeeds, under
// a policy with no attempt limit. The direct row is a plain loop.
func BenchmarkZeroDelayRetry(b *testing.B) {
	for _, l := range runnerLibs {
		b.Run("lib="+l.lib, func(b *testing.B) {
			call := l.newUnlimited()
			f := flaky{fails: b.N}
			b.ReportAllocs()
			b.ResetTimer()
			v, err := call(&f)
			if err != nil || v != b.N+1 {
				b.Fatal(v, err)
			}
		})
	}
	b.Run("lib=direct", func(b *testing.B) {
		f := flaky{fails: b.N}
		b.ReportAllocs()
		b.ResetTimer()
		_, err := f.attempt()
		for err != nil {
			_, err = f.attempt()
		}
	})
}

// TestRunnerConfigs checks that every library in the runner benchmarks is
// configured to do the same work: the first-try policy makes at most 3
// attempts, the zero-delay one at most 4, the unlimited one keeps going,
// and each returns the operation's value, or an error that wraps its last
// one.
func TestRunnerConfigs(t *testing.T) {
	for _, l := range runnerLibs {
		t.Run(l.lib, func(t *testing.T) {
			for _, c := range []struct {
				name         string
				call         caller
				fails        int
				wantAttempts int
				wantOK       bool
			}{
				{"first try succeeds", l.newFirstTry(), 0, 1, true},
				{"first try: at most 3 attempts", l.newFirstTry(), 100, 3, false},
				{"zero delay: 3 failures then success", l.newZeroDelay(), 3, 4, true},
				{"zero delay: at most 4 attempts", l.newZeroDelay(), 100, 4, false},
				{"unlimited: 1000 failures then success", l.newUnlimited(), 1000, 1001, true},
			} {
				f := flaky{fails: c.fails}
				v, err := c.call(&f)
				if f.n != c.wantAttempts {
					t.Errorf("%s: %d attempts, want %d", c.name, f.n, c.wantAttempts)
				}
				switch {
				case c.wantOK && (err != nil || v != c.wantAttempts):
					t.Errorf("%s: got (%d, %v), want (%d, nil)", c.name, v, err, c.wantAttempts)
				case !c.wantOK && !errors.Is(err, errFlaky):
					t.Errorf("%s: got error %v, want one that wraps %v", c.name, err, errFlaky)
				}
			}
		})
	}
}
