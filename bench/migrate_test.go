package bench

// The mappings of docs/migrating.md, each checked against the peer: the
// peer's construct and recur's are run side by side and their delays, their
// attempt counts or their outcomes compared. Where a peer draws its jitter
// from a source it does not let a caller pin, the comparison is of bounds
// over many draws, or of the same configuration with the jitter off.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	avast "github.com/avast/retry-go/v4"
	"github.com/cenkalti/backoff/v5"
	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"github.com/hashicorp/go-retryablehttp"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
	goretry "github.com/sethvargo/go-retry"
	"github.com/sony/gobreaker/v2"
)

var errMigrate = errors.New("the target is down")

// recurRun runs policy around an operation that fails `fails` times (-1:
// always) on a virtual clock, and returns the attempts made, the waits and
// the error.
func recurRun(t *testing.T, policy string, worth func(error) bool, opErr error, fails int) (int, []time.Duration, error) {
	t.Helper()
	s, err := parse.Parse(policy)
	if err != nil {
		t.Fatal(err)
	}
	clock := clockcap.Virtual(time.Now())
	opts := retry.Options{Caps: retry.Caps{Clock: clock, Random: randcap.Seeded(1)}}
	if worth == nil {
		worth = func(error) bool { return true }
	}
	n := 0
	_, err = retry.RetryWhile(context.Background(), opts, s, worth, func(context.Context) (int, error) {
		n++
		if fails < 0 || n <= fails {
			return 0, opErr
		}
		return n, nil
	})
	return n, clock.Sleeps(), err
}

// delays returns the first n delays of policy for instant attempts.
func delays(t *testing.T, policy string, n int) []time.Duration {
	t.Helper()
	var out []time.Duration
	for d := range interp.Delays(parse.MustParse(policy), 1) {
		if len(out) == n {
			break
		}
		out = append(out, d)
	}
	return out
}

func ms(ds ...int) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = time.Duration(d) * time.Millisecond
	}
	return out
}

// checkBand checks that every sample of delay k lies in [lo[k], hi[k]] and
// that the samples reach within 5% of each end: the two libraries draw
// from the same band.
func checkBand(t *testing.T, who string, samples [][]time.Duration, lo, hi []time.Duration) {
	t.Helper()
	for k := range lo {
		mn, mx := time.Duration(1<<62), time.Duration(0)
		for _, s := range samples {
			d := s[k]
			if d < lo[k] || d > hi[k] {
				t.Fatalf("%s: delay %d = %v, outside [%v, %v]", who, k+1, d, lo[k], hi[k])
			}
			mn, mx = min(mn, d), max(mx, d)
		}
		slack := (hi[k] - lo[k]) / 20
		if mn > lo[k]+slack || mx < hi[k]-slack {
			t.Errorf("%s: delay %d drawn from [%v, %v], want about [%v, %v]", who, k+1, mn, mx, lo[k], hi[k])
		}
	}
}

func TestMigrateCenkalti(t *testing.T) {
	t.Run("ExponentialBackOff-no-jitter", func(t *testing.T) {
		// InitialInterval, Multiplier, MaxInterval, RandomizationFactor 0
		// ≡ exponential(initial, multiplier·100%, max).
		for _, c := range []struct {
			b      backoff.ExponentialBackOff
			policy string
		}{
			{backoff.ExponentialBackOff{InitialInterval: 100 * time.Millisecond, Multiplier: 2, MaxInterval: 2 * time.Second}, "exponential(100ms, 200%, 2s)"},
			{backoff.ExponentialBackOff{InitialInterval: 500 * time.Millisecond, Multiplier: 1.5, MaxInterval: 60 * time.Second}, "exponential(500ms, 150%, 60s)"},
		} {
			b := c.b
			b.Reset()
			var got []time.Duration
			for range 12 {
				got = append(got, b.NextBackOff())
			}
			if want := delays(t, c.policy, 12); !slices.Equal(got, want) {
				t.Errorf("cenkalti %+v: %v\nrecur %s: %v", c.b, got, c.policy, want)
			}
		}
	})
	t.Run("RandomizationFactor", func(t *testing.T) {
		// RandomizationFactor 0.5 ≡ jittered(…, 50%, 150%): both draw from
		// [0.5·i, 1.5·i] (cenkalti's range ends 1ns later).
		const runs = 3000
		pol := parse.MustParse("jittered(exponential(100ms, 200%, 2s), 50%, 150%)")
		var ck, rc [][]time.Duration
		for i := range runs {
			b := &backoff.ExponentialBackOff{InitialInterval: 100 * time.Millisecond, Multiplier: 2, MaxInterval: 2 * time.Second, RandomizationFactor: 0.5}
			b.Reset()
			var s []time.Duration
			for range 6 {
				s = append(s, b.NextBackOff())
			}
			ck = append(ck, s)
			s = nil
			for d := range interp.Delays(pol, uint64(i)) {
				if s = append(s, d); len(s) == 6 {
					break
				}
			}
			rc = append(rc, s)
		}
		lo, hi := ms(50, 100, 200, 400, 800, 1000), ms(150, 300, 600, 1200, 2400, 3000)
		checkBand(t, "recur", rc, lo, hi)
		for k := range hi {
			hi[k]++
		}
		checkBand(t, "cenkalti", ck, lo, hi)
	})
	t.Run("Retry-WithMaxTries", func(t *testing.T) {
		// WithMaxTries(5) is 5 attempts in all ≡ times(5); the last error
		// comes back unwrapped, recur's wrapped in a *retry.Error.
		var waits []time.Duration
		n := 0
		_, err := backoff.Retry(context.Background(), func() (int, error) { n++; return 0, errMigrate },
			backoff.WithBackOff(&backoff.ExponentialBackOff{InitialInterval: time.Millisecond, Multiplier: 2, MaxInterval: 4 * time.Millisecond}),
			backoff.WithMaxTries(5),
			backoff.WithNotify(func(_ error, d time.Duration) { waits = append(waits, d) }))
		rn, rwaits, rerr := recurRun(t, "exponential(1ms, 200%, 4ms) & times(5)", nil, errMigrate, -1)
		if n != 5 || rn != 5 || !slices.Equal(waits, ms(1, 2, 4, 4)) || !slices.Equal(rwaits, waits) {
			t.Errorf("cenkalti: %d attempts, waits %v; recur: %d attempts, waits %v", n, waits, rn, rwaits)
		}
		var e *retry.Error
		if err != errMigrate || !errors.Is(rerr, errMigrate) || !errors.As(rerr, &e) || e.Attempts != 5 {
			t.Errorf("cenkalti err %v, recur err %v", err, rerr)
		}
	})
	t.Run("WithMaxElapsedTime", func(t *testing.T) {
		// WithMaxElapsedTime(70ms) ≡ upto 70ms: no attempt starts later
		// than 70ms after the first. With waits of 20ms and instant
		// attempts, both start attempts at 0, 20, 40 and 60ms and stop
		// there (cenkalti on the real clock: 10ms of slack).
		n := 0
		_, err := backoff.Retry(context.Background(), func() (int, error) { n++; return 0, errMigrate },
			backoff.WithBackOff(&backoff.ConstantBackOff{Interval: 20 * time.Millisecond}),
			backoff.WithMaxElapsedTime(70*time.Millisecond))
		rn, rwaits, rerr := recurRun(t, "exponential(20ms, 100%, 20ms) upto 70ms", nil, errMigrate, -1)
		if n != 4 || rn != 4 || !slices.Equal(rwaits, ms(20, 20, 20)) || err != errMigrate || !errors.Is(rerr, errMigrate) {
			t.Errorf("cenkalti: %d attempts, %v; recur: %d attempts, waits %v, %v", n, err, rn, rwaits, rerr)
		}
	})
	t.Run("Permanent", func(t *testing.T) {
		// backoff.Permanent(err) ≡ a worth func that says no: one attempt,
		// err returned as it is.
		n := 0
		_, err := backoff.Retry(context.Background(), func() (int, error) { n++; return 0, backoff.Permanent(errMigrate) },
			backoff.WithBackOff(&backoff.ZeroBackOff{}))
		rn, _, rerr := recurRun(t, "times(5)", func(err error) bool { return !errors.Is(err, errMigrate) }, errMigrate, -1)
		if n != 1 || rn != 1 || err != errMigrate || rerr != errMigrate {
			t.Errorf("cenkalti: %d attempts, %v; recur: %d attempts, %v", n, err, rn, rerr)
		}
	})
}

func TestMigrateFailsafe(t *testing.T) {
	t.Run("WithMaxRetries-WithBackoff", func(t *testing.T) {
		// WithMaxRetries(3) is 3 retries, 4 attempts ≡ times(4);
		// WithBackoff(d, max) ≡ exponential(d, 200%, max).
		var waits []time.Duration
		rp := retrypolicy.NewBuilder[int]().WithMaxRetries(3).WithBackoff(time.Millisecond, 4*time.Millisecond).
			OnRetryScheduled(func(e failsafe.ExecutionScheduledEvent[int]) { waits = append(waits, e.Delay) }).Build()
		n := 0
		_, err := failsafe.With(rp).Get(func() (int, error) { n++; return 0, errMigrate })
		rn, rwaits, rerr := recurRun(t, "exponential(1ms, 200%, 4ms) & times(4)", nil, errMigrate, -1)
		if n != 4 || rn != 4 || !slices.Equal(waits, ms(1, 2, 4)) || !slices.Equal(rwaits, waits) {
			t.Errorf("failsafe-go: %d attempts, waits %v; recur: %d attempts, waits %v", n, waits, rn, rwaits)
		}
		// Both wrap the last error: failsafe-go in an ExceededError.
		if !retrypolicy.IsExceededError(err) || !errors.Is(err, errMigrate) || !errors.Is(rerr, errMigrate) {
			t.Errorf("failsafe-go err %v, recur err %v", err, rerr)
		}
	})
	t.Run("WithMaxAttempts", func(t *testing.T) {
		for _, attempts := range []int{1, 3} {
			rp := retrypolicy.NewBuilder[int]().WithMaxAttempts(attempts).ReturnLastFailure().Build()
			n := 0
			_, err := failsafe.With(rp).Get(func() (int, error) { n++; return 0, errMigrate })
			rn, _, _ := recurRun(t, fmt.Sprintf("times(%d)", attempts), nil, errMigrate, -1)
			if n != attempts || rn != attempts || err != errMigrate {
				t.Errorf("WithMaxAttempts(%d): failsafe-go %d attempts (%v), recur times(%d) %d", attempts, n, err, attempts, rn)
			}
		}
	})
	t.Run("defaults", func(t *testing.T) {
		// NewWithDefaults: 3 attempts, no delay ≡ times(3).
		n := 0
		_, _ = failsafe.With(retrypolicy.NewWithDefaults[int]()).Get(func() (int, error) { n++; return 0, errMigrate })
		rn, rwaits, _ := recurRun(t, "times(3)", nil, errMigrate, -1)
		if n != 3 || rn != 3 || len(rwaits) != 0 { // a zero wait is no sleep
			t.Errorf("failsafe-go %d attempts, recur %d (waits %v)", n, rn, rwaits)
		}
	})
	t.Run("AbortOnErrors", func(t *testing.T) {
		rp := retrypolicy.NewBuilder[int]().AbortOnErrors(errMigrate).Build()
		n := 0
		_, err := failsafe.With(rp).Get(func() (int, error) { n++; return 0, errMigrate })
		rn, _, rerr := recurRun(t, "times(3)", func(err error) bool { return !errors.Is(err, errMigrate) }, errMigrate, -1)
		if n != 1 || rn != 1 || !errors.Is(err, errMigrate) || rerr != errMigrate {
			t.Errorf("failsafe-go: %d attempts, %v; recur: %d attempts, %v", n, err, rn, rerr)
		}
	})
	t.Run("WithJitterFactor", func(t *testing.T) {
		// WithDelay(d) + WithJitterFactor(0.25) ≡ jittered(exponential(d,
		// 100%, d), 75%, 125%): a constant delay scaled by 0.75–1.25.
		const runs = 150
		var fs, rc [][]time.Duration
		pol := parse.MustParse("jittered(exponential(2ms, 100%, 2ms), 75%, 125%)")
		for i := range runs {
			var d time.Duration
			rp := retrypolicy.NewBuilder[int]().WithMaxRetries(1).WithDelay(2 * time.Millisecond).WithJitterFactor(0.25).
				OnRetryScheduled(func(e failsafe.ExecutionScheduledEvent[int]) { d = e.Delay }).Build()
			_, _ = failsafe.With(rp).Get(func() (int, error) { return 0, errMigrate })
			fs = append(fs, []time.Duration{d})
			for d := range interp.Delays(pol, uint64(i)) {
				rc = append(rc, []time.Duration{d})
				break
			}
		}
		lo, hi := []time.Duration{1500 * time.Microsecond}, []time.Duration{2500 * time.Microsecond}
		checkBand(t, "failsafe-go", fs, lo, hi)
		checkBand(t, "recur", rc, lo, hi)
	})
}

// avastTimer records avast's waits and skips them.
type avastTimer struct{ waits []time.Duration }

func (a *avastTimer) After(d time.Duration) <-chan time.Time {
	a.waits = append(a.waits, d)
	c := make(chan time.Time, 1)
	c <- time.Now()
	return c
}

func TestMigrateAvast(t *testing.T) {
	t.Run("Attempts-BackOffDelay", func(t *testing.T) {
		// Attempts(5) is 5 attempts in all ≡ times(5); Delay(100ms) with
		// DelayType(BackOffDelay) and MaxDelay(2s) ≡ exponential(100ms,
		// 200%, 2s). The default DelayType adds up to MaxJitter (100ms)
		// of random delay: BackOffDelay alone has none.
		timer := &avastTimer{}
		n, onRetry := 0, 0
		_, err := avast.DoWithData(func() (int, error) { n++; return 0, errMigrate },
			avast.Attempts(5), avast.Delay(100*time.Millisecond), avast.MaxDelay(2*time.Second),
			avast.DelayType(avast.BackOffDelay), avast.LastErrorOnly(true), avast.WithTimer(timer),
			avast.OnRetry(func(uint, error) { onRetry++ }))
		rn, rwaits, rerr := recurRun(t, "exponential(100ms, 200%, 2s) & times(5)", nil, errMigrate, -1)
		if n != 5 || rn != 5 || !slices.Equal(timer.waits, ms(100, 200, 400, 800)) || !slices.Equal(rwaits, timer.waits) {
			t.Errorf("avast: %d attempts, waits %v; recur: %d attempts, waits %v", n, timer.waits, rn, rwaits)
		}
		if err != errMigrate || !errors.Is(rerr, errMigrate) {
			t.Errorf("avast err %v, recur err %v", err, rerr)
		}
		// avast calls OnRetry after every failed attempt, the last one
		// too; recur reports Retrying before each wait, so once fewer.
		if onRetry != 5 {
			t.Errorf("avast OnRetry ran %d times, want 5", onRetry)
		}
	})
	t.Run("AttemptsForError", func(t *testing.T) {
		// AttemptsForError(3, err) inside Attempts(5) ≡
		// Options.ErrorLimits{{Err: err, Attempts: 3}} with times(5): 3
		// attempts for that error, 5 for others.
		for _, fail := range []error{errMigrate, errors.New("other")} {
			n := 0
			_, _ = avast.DoWithData(func() (int, error) { n++; return 0, fail },
				avast.Attempts(5), avast.AttemptsForError(3, errMigrate), avast.Delay(0), avast.WithTimer(&avastTimer{}))
			rn := 0
			o := retry.Options{Caps: retry.Caps{Clock: clockcap.Virtual(time.Now())}, ErrorLimits: []retry.ErrorLimit{{Err: errMigrate, Attempts: 3}}}
			_, _ = retry.Retry(context.Background(), o, schedule.Times{N: 5}, func(context.Context) (int, error) { rn++; return 0, fail })
			want := 5
			if fail == errMigrate {
				want = 3
			}
			if n != want || rn != want {
				t.Errorf("%v: avast %d attempts, recur %d; want %d", fail, n, rn, want)
			}
		}
	})
	t.Run("errors-list", func(t *testing.T) {
		// Without LastErrorOnly, avast returns every attempt's error.
		_, err := avast.DoWithData(func() (int, error) { return 0, errMigrate },
			avast.Attempts(3), avast.Delay(0), avast.WithTimer(&avastTimer{}))
		var list avast.Error
		if !errors.As(err, &list) || len(list) != 3 || !errors.Is(err, errMigrate) {
			t.Errorf("avast err %#v", err)
		}
	})
	t.Run("Unrecoverable-RetryIf", func(t *testing.T) {
		n := 0
		_, err := avast.DoWithData(func() (int, error) { n++; return 0, avast.Unrecoverable(errMigrate) },
			avast.Attempts(5), avast.WithTimer(&avastTimer{}), avast.LastErrorOnly(true))
		m := 0
		_, err2 := avast.DoWithData(func() (int, error) { m++; return 0, errMigrate },
			avast.Attempts(5), avast.WithTimer(&avastTimer{}), avast.LastErrorOnly(true),
			avast.RetryIf(func(err error) bool { return !errors.Is(err, errMigrate) }))
		rn, _, rerr := recurRun(t, "times(5)", func(err error) bool { return !errors.Is(err, errMigrate) }, errMigrate, -1)
		if n != 1 || m != 1 || rn != 1 || !errors.Is(err, errMigrate) || err2 != errMigrate || rerr != errMigrate {
			t.Errorf("avast: %d and %d attempts (%v, %v); recur: %d attempts, %v", n, m, err, err2, rn, rerr)
		}
	})
	t.Run("Attempts0", func(t *testing.T) {
		// Attempts(0) retries until success ≡ forever (here with the same
		// waits: exponential(…) alone never stops).
		timer := &avastTimer{}
		n := 0
		v, err := avast.DoWithData(func() (int, error) {
			if n++; n < 8 {
				return 0, errMigrate
			}
			return n, nil
		}, avast.Attempts(0), avast.Delay(100*time.Millisecond), avast.MaxDelay(2*time.Second),
			avast.DelayType(avast.BackOffDelay), avast.WithTimer(timer))
		rn, rwaits, rerr := recurRun(t, "exponential(100ms, 200%, 2s)", nil, errMigrate, 7)
		if v != 8 || err != nil || rn != 8 || rerr != nil || !slices.Equal(rwaits, timer.waits) {
			t.Errorf("avast: %d, %v, waits %v; recur: %d attempts, %v, waits %v", v, err, timer.waits, rn, rerr, rwaits)
		}
	})
}

// goretryDelays steps b until it stops or n delays are out.
func goretryDelays(b goretry.Backoff, n int) []time.Duration {
	var out []time.Duration
	for len(out) < n {
		d, stop := b.Next()
		if stop {
			break
		}
		out = append(out, d)
	}
	return out
}

func TestMigrateSethvargo(t *testing.T) {
	t.Run("WithMaxRetries-WithCappedDuration-NewExponential", func(t *testing.T) {
		// WithMaxRetries(4, …) is 4 retries, 5 attempts ≡ times(5).
		got := goretryDelays(goretry.WithMaxRetries(4, goretry.WithCappedDuration(2*time.Second, goretry.NewExponential(100*time.Millisecond))), 100)
		want := delays(t, "exponential(100ms, 200%, 2s) & times(5)", 100)
		if !slices.Equal(got, want) || len(got) != 4 {
			t.Errorf("go-retry %v, recur %v", got, want)
		}
		got = goretryDelays(goretry.WithCappedDuration(2*time.Second, goretry.NewExponential(100*time.Millisecond)), 10)
		if want := delays(t, "exponential(100ms, 200%, 2s)", 10); !slices.Equal(got, want) {
			t.Errorf("go-retry %v, recur %v", got, want)
		}
	})
	t.Run("NewFibonacci", func(t *testing.T) {
		// go-retry's Fibonacci runs base, 2·base, 3·base, 5·base; recur's
		// base·fib(k) with fib(1) = fib(2) = 1 runs base, base, 2·base:
		// go-retry's k-th delay is recur's (k+1)-th.
		got := goretryDelays(goretry.NewFibonacci(100*time.Millisecond), 10)
		rec := delays(t, "fibonacci(100ms)", 11)
		if !slices.Equal(got, rec[1:]) || !slices.Equal(got[:4], ms(100, 200, 300, 500)) || !slices.Equal(rec[:4], ms(100, 100, 200, 300)) {
			t.Errorf("go-retry %v, recur %v", got, rec)
		}
	})
	t.Run("NewConstant", func(t *testing.T) {
		got := goretryDelays(goretry.NewConstant(250*time.Millisecond), 5)
		if want := delays(t, "exponential(250ms, 100%, 250ms)", 5); !slices.Equal(got, want) {
			t.Errorf("go-retry %v, recur %v", got, want)
		}
	})
	t.Run("WithJitterPercent", func(t *testing.T) {
		// WithJitterPercent(10, NewConstant(1s)) ≡ jittered(exponential(1s,
		// 100%, 1s), 90%, 110%).
		const runs = 3000
		pol := parse.MustParse("jittered(exponential(1s, 100%, 1s), 90%, 110%)")
		var gr, rc [][]time.Duration
		for i := range runs {
			gr = append(gr, goretryDelays(goretry.WithJitterPercent(10, goretry.NewConstant(time.Second)), 1))
			for d := range interp.Delays(pol, uint64(i)) {
				rc = append(rc, []time.Duration{d})
				break
			}
		}
		lo, hi := ms(900), ms(1100)
		checkBand(t, "go-retry", gr, lo, hi)
		checkBand(t, "recur", rc, lo, hi)
	})
	t.Run("Do-RetryableError", func(t *testing.T) {
		// go-retry retries only errors wrapped in RetryableError and
		// returns the last one unwrapped; recur's worth func decides.
		n := 0
		err := goretry.Do(context.Background(), goretry.WithMaxRetries(2, goretry.NewConstant(time.Millisecond)),
			func(context.Context) error { n++; return goretry.RetryableError(errMigrate) })
		rn, _, rerr := recurRun(t, "exponential(1ms, 100%, 1ms) & times(3)", nil, errMigrate, -1)
		if n != 3 || rn != 3 || err != errMigrate || !errors.Is(rerr, errMigrate) {
			t.Errorf("go-retry: %d attempts, %v; recur: %d attempts, %v", n, err, rn, rerr)
		}
		n = 0
		err = goretry.Do(context.Background(), goretry.WithMaxRetries(2, goretry.NewConstant(time.Millisecond)),
			func(context.Context) error { n++; return errMigrate })
		rn, _, rerr = recurRun(t, "times(3)", func(error) bool { return false }, errMigrate, -1)
		if n != 1 || rn != 1 || err != errMigrate || rerr != errMigrate {
			t.Errorf("go-retry: %d attempts, %v; recur: %d attempts, %v", n, err, rn, rerr)
		}
	})
}

// step is one call through a breaker: whether it was let through, and
// the state after it.
type step struct {
	allowed bool
	state   string
}

func gobreakerCall(cb *gobreaker.CircuitBreaker[int], fail bool) step {
	_, err := cb.Execute(func() (int, error) {
		if fail {
			return 0, errMigrate
		}
		return 1, nil
	})
	allowed := !errors.Is(err, gobreaker.ErrOpenState) && !errors.Is(err, gobreaker.ErrTooManyRequests)
	return step{allowed, cb.State().String()}
}

func recurCall(b *breaker.Breaker, fail bool) step {
	_, err := breaker.Do(context.Background(), b, nil, func(context.Context) (int, error) {
		if fail {
			return 0, errMigrate
		}
		return 1, nil
	})
	return step{!errors.Is(err, breaker.ErrOpen), b.State().String()}
}

func TestMigrateGobreaker(t *testing.T) {
	t.Run("defaults", func(t *testing.T) {
		// gobreaker's default ReadyToTrip opens after more than 5
		// failures in a row (the 6th); recur's breaker.Config{} after 5.
		cb := gobreaker.NewCircuitBreaker[int](gobreaker.Settings{})
		b, err := breaker.New(breaker.Config{})
		if err != nil {
			t.Fatal(err)
		}
		gOpen, rOpen := 0, 0
		for i := 1; i <= 7; i++ {
			if s := gobreakerCall(cb, true); s.state == "open" && gOpen == 0 {
				gOpen = i
			}
			if s := recurCall(b, true); s.state == "open" && rOpen == 0 {
				rOpen = i
			}
		}
		if gOpen != 6 || rOpen != 5 {
			t.Errorf("gobreaker opened at failure %d, recur at %d; want 6 and 5", gOpen, rOpen)
		}
	})
	t.Run("Settings", func(t *testing.T) {
		// Settings{ReadyToTrip: ConsecutiveFailures >= 3, Timeout: 40ms,
		// MaxRequests: 1} ≡ Config{ConsecutiveFailures: 3, FailureRate: -1,
		// OpenFor: exponential(40ms, 100%, 40ms), HalfOpenProbes: 1}.
		const open = 40 * time.Millisecond
		cb := gobreaker.NewCircuitBreaker[int](gobreaker.Settings{
			ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= 3 },
			Timeout:     open, MaxRequests: 1,
		})
		b, err := breaker.New(breaker.Config{ConsecutiveFailures: 3, FailureRate: -1,
			OpenFor: schedule.Exponential{Base: open, FactorPct: 100, Cap: open}, HalfOpenProbes: 1})
		if err != nil {
			t.Fatal(err)
		}
		// ReadyToTrip ≡ TripWhen, over recur's Counts.
		bt, err := breaker.New(breaker.Config{TripWhen: func(c breaker.Counts) bool { return c.ConsecutiveFailures >= 3 },
			FailureRate: -1, OpenFor: schedule.Exponential{Base: open, FactorPct: 100, Cap: open}})
		if err != nil {
			t.Fatal(err)
		}
		script := []struct {
			fail  bool
			sleep bool // wait out the open duration first
		}{
			{fail: true}, {fail: false}, {fail: true}, {fail: true}, {fail: true}, // opens on the 3rd in a row
			{fail: false},              // refused
			{fail: true, sleep: true},  // the probe fails: open again
			{fail: false},              // refused
			{fail: false, sleep: true}, // the probe succeeds: closed
			{fail: true}, {fail: false},
		}
		for i, s := range script {
			if s.sleep {
				time.Sleep(open + 20*time.Millisecond)
			}
			g, r, rt := gobreakerCall(cb, s.fail), recurCall(b, s.fail), recurCall(bt, s.fail)
			if g != r || g != rt {
				t.Errorf("call %d (fail %v): gobreaker %+v, recur %+v, recur with TripWhen %+v", i+1, s.fail, g, r, rt)
			}
		}
		if s := recurCall(b, false); s.state != "closed" {
			t.Errorf("recur ends %s", s.state)
		}
	})
	t.Run("TwoStep-half-open", func(t *testing.T) {
		// Half-open with one probe out: both refuse a second call
		// (gobreaker with ErrTooManyRequests, recur with ErrOpen).
		const open = 20 * time.Millisecond
		cb := gobreaker.NewTwoStepCircuitBreaker[int](gobreaker.Settings{
			ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= 1 }, Timeout: open,
		})
		b, err := breaker.New(breaker.Config{ConsecutiveFailures: 1, FailureRate: -1,
			OpenFor: schedule.Exponential{Base: open, FactorPct: 100, Cap: open}})
		if err != nil {
			t.Fatal(err)
		}
		done, _ := cb.Allow()
		done(errMigrate)
		p, _ := b.Allow()
		b.Record(&p, verdict.Transient)
		time.Sleep(open + 20*time.Millisecond)
		done, err1 := cb.Allow()
		_, err2 := cb.Allow()
		p, rerr1 := b.Allow()
		_, rerr2 := b.Allow()
		if err1 != nil || !errors.Is(err2, gobreaker.ErrTooManyRequests) || rerr1 != nil || !errors.Is(rerr2, breaker.ErrOpen) {
			t.Errorf("gobreaker: %v, %v; recur: %v, %v", err1, err2, rerr1, rerr2)
		}
		done(nil)
		b.Record(&p, verdict.Success)
		if cb.State() != gobreaker.StateClosed || b.State() != breaker.Closed {
			t.Errorf("after the probe: gobreaker %v, recur %v", cb.State(), b.State())
		}
	})
}

// retryablehttpClient is a go-retryablehttp client with waits of 1ms to
// 4ms, retryMax retries and no logger, recording its waits.
func retryablehttpClient(retryMax int, waits *[]time.Duration) *retryablehttp.Client {
	c := retryablehttp.NewClient()
	c.Logger = nil
	c.RetryMax, c.RetryWaitMin, c.RetryWaitMax = retryMax, time.Millisecond, 4*time.Millisecond
	c.Backoff = func(min, max time.Duration, n int, resp *http.Response) time.Duration {
		d := retryablehttp.DefaultBackoff(min, max, n, resp)
		*waits = append(*waits, d)
		return d
	}
	return c
}

// countingServer answers status to every request and counts them.
func countingServer(t *testing.T, status int) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestMigrateRetryablehttp(t *testing.T) {
	// RetryMax 3 is 3 retries, 4 attempts; RetryWaitMin/Max with
	// DefaultBackoff ≡ exponential(min, 200%, max) & times(RetryMax+1).
	const policy = "exponential(1ms, 200%, 4ms) & times(4)"
	newTransport := func(t *testing.T, waits *[]time.Duration) *httpretry.Transport {
		tr, err := httpretry.New(&http.Transport{}, policy)
		if err != nil {
			t.Fatal(err)
		}
		tr.Options.Unthrottled = true // compare the policies alone
		tr.Options.Observer = retry.ObserverFunc(func(_ context.Context, e retry.Event) {
			if e.Kind == retry.Retrying {
				*waits = append(*waits, e.Delay)
			}
		})
		t.Cleanup(tr.CloseIdleConnections)
		return tr
	}
	t.Run("GET-503", func(t *testing.T) {
		srv, n := countingServer(t, http.StatusServiceUnavailable)
		var waits, rwaits []time.Duration
		c := retryablehttpClient(3, &waits)
		resp, err := c.Get(srv.URL)
		if resp != nil {
			resp.Body.Close()
		}
		peer := n.Swap(0)
		rresp, rerr := (&http.Client{Transport: newTransport(t, &rwaits)}).Get(srv.URL)
		if rerr != nil {
			t.Fatal(rerr)
		}
		rresp.Body.Close()
		if peer != 4 || n.Load() != 4 || !slices.Equal(waits, ms(1, 2, 4)) || !slices.Equal(rwaits, waits) {
			t.Errorf("retryablehttp: %d requests, waits %v; httpretry: %d requests, waits %v", peer, waits, n.Load(), rwaits)
		}
		// retryablehttp gives up with an error and no response;
		// httpretry returns the last response, as net/http would.
		if err == nil || !strings.Contains(err.Error(), "giving up after 4 attempt(s)") || rresp.StatusCode != 503 {
			t.Errorf("retryablehttp err %v; httpretry status %d", err, rresp.StatusCode)
		}
		// PassthroughErrorHandler makes retryablehttp return it too.
		c.ErrorHandler = retryablehttp.PassthroughErrorHandler
		resp, err = c.Get(srv.URL)
		if err != nil || resp.StatusCode != 503 {
			t.Errorf("retryablehttp with PassthroughErrorHandler: %v, %v", resp, err)
		} else {
			resp.Body.Close()
		}
	})
	t.Run("POST", func(t *testing.T) {
		// retryablehttp retries a POST; httpretry sends it once, unless
		// it carries an Idempotency-Key.
		srv, n := countingServer(t, http.StatusServiceUnavailable)
		var waits, rwaits []time.Duration
		resp, err := retryablehttpClient(3, &waits).Post(srv.URL, "text/plain", []byte("order"))
		if err == nil {
			t.Error("retryablehttp: no error after the last 503")
		}
		if resp != nil {
			resp.Body.Close()
		}
		peer := n.Swap(0)
		client := &http.Client{Transport: newTransport(t, &rwaits)}
		rresp, err := client.Post(srv.URL, "text/plain", strings.NewReader("order"))
		if err != nil {
			t.Fatal(err)
		}
		rresp.Body.Close()
		once := n.Swap(0)
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("order"))
		req.Header.Set("Idempotency-Key", "order-1")
		rresp, err = client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		rresp.Body.Close()
		if peer != 4 || once != 1 || n.Load() != 4 {
			t.Errorf("POST: retryablehttp %d requests, httpretry %d, with an Idempotency-Key %d", peer, once, n.Load())
		}
	})
	t.Run("500", func(t *testing.T) {
		// retryablehttp retries a 500 (any 5xx but 501); httpretry only
		// with Retry500.
		srv, n := countingServer(t, http.StatusInternalServerError)
		var waits, rwaits []time.Duration
		resp, _ := retryablehttpClient(3, &waits).Get(srv.URL)
		if resp != nil {
			resp.Body.Close()
		}
		peer := n.Swap(0)
		tr := newTransport(t, &rwaits)
		rresp, err := (&http.Client{Transport: tr}).Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		rresp.Body.Close()
		plain := n.Swap(0)
		tr500 := newTransport(t, &rwaits)
		tr500.Retry500 = true
		rresp, err = (&http.Client{Transport: tr500}).Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		rresp.Body.Close()
		if peer != 4 || plain != 1 || n.Load() != 4 {
			t.Errorf("500: retryablehttp %d requests, httpretry %d, with Retry500 %d", peer, plain, n.Load())
		}
	})
}
