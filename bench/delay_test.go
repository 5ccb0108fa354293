package bench

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/avast/retry-go/v4"
	"github.com/cenkalti/backoff/v5"
	"github.com/hashicorp/go-retryablehttp"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
	goretry "github.com/sethvargo/go-retry"
)

// The work: exponential backoff from 100ms, doubling, capped at 10s, with
// full jitter: the k-th delay is uniform in [0, min(10s, 100ms·2^(k-1))].
const (
	base = 100 * time.Millisecond
	ceil = 10 * time.Second
)

// stepper returns the delay before the next retry; one call is one delay
// computation. A new stepper starts a new run.
type stepper func() time.Duration

// delayLibs configures each library that can compute a delay on its own to
// do the work above. failsafe-go is missing: its delay computation
// (retrypolicy's executor.getDelay) is unexported and runs only inside an
// execution, which arms a timer for every retry, so it cannot be measured
// as one delay computation.
var delayLibs = []struct {
	lib    string
	config string // how the library is configured, as written in the docs
	new    func() stepper
}{
	{
		lib:    "recur",
		config: "interp.Start(schedule.FullJitter(100ms, 10s), seed).Next — exact",
		new: func() stepper {
			r := interp.Start(schedule.FullJitter(base, ceil), rand.Uint64())
			var now time.Duration
			return func() time.Duration {
				d, _ := r.Next(now, now)
				now += d
				return d
			}
		},
	},
	{
		// cenkalti's jitter is interval·(1 ± RandomizationFactor); at factor 1
		// that is uniform in [0, 2·interval], so halving the initial and the
		// maximum interval gives full jitter (the range is [0, 2·interval+1ns)).
		lib:    "cenkalti",
		config: "ExponentialBackOff{InitialInterval: 50ms, Multiplier: 2, MaxInterval: 5s, RandomizationFactor: 1}.NextBackOff — full jitter via factor 1 on half the interval",
		new: func() stepper {
			b := &backoff.ExponentialBackOff{InitialInterval: base / 2, Multiplier: 2, MaxInterval: ceil / 2, RandomizationFactor: 1}
			b.Reset()
			return b.NextBackOff
		},
	},
	{
		lib:    "sethvargo",
		config: "WithFullJitter(WithCappedDuration(10s, NewExponential(100ms))).Next — exact ([0, d) rather than [0, d])",
		new: func() stepper {
			b := goretry.WithFullJitter(goretry.WithCappedDuration(ceil, goretry.NewExponential(base)))
			return func() time.Duration {
				d, _ := b.Next()
				return d
			}
		},
	},
	{
		// avast's FullJitterBackoffDelay draws from [0, Delay·2^n) with n = 1
		// for the first retry, so Delay is half of ours.
		lib:    "avast",
		config: "FullJitterBackoffDelay(n, err, config) with Delay(50ms), MaxDelay(10s), n = 1, 2, … — exact",
		new: func() stepper {
			var c retry.Config
			retry.Delay(base / 2)(&c)
			retry.MaxDelay(ceil)(&c)
			var n uint
			return func() time.Duration {
				n++
				return retry.FullJitterBackoffDelay(n, nil, &c)
			}
		},
	},
	{
		lib:    "retryablehttp",
		config: "DefaultBackoff(100ms, 10s, n, nil), n = 0, 1, … — no jitter: its only exponential backoff has none, so this row does less work",
		new: func() stepper {
			var n int
			return func() time.Duration {
				d := retryablehttp.DefaultBackoff(base, ceil, n, nil)
				n++
				return d
			}
		},
	},
}

var sinkDur time.Duration

// BenchmarkDelay measures one delay computation in the steady state of a
// run: a run is started once and stepped b.N times, so after the seventh
// step every library is computing capped delays.
func BenchmarkDelay(b *testing.B) {
	for _, l := range delayLibs {
		b.Run("lib="+l.lib, func(b *testing.B) {
			next := l.new()
			b.ReportAllocs()
			for b.Loop() {
				sinkDur = next()
			}
		})
	}
}

// TestDelayConfigs checks that every library in BenchmarkDelay is
// configured to do the work: over many runs, the k-th delay stays in
// [0, min(10s, 100ms·2^(k-1))] and its mean is near half of that (full
// jitter), or equals it exactly for the row without jitter.
func TestDelayConfigs(t *testing.T) {
	const runs, steps = 2000, 10
	for _, l := range delayLibs {
		t.Run(l.lib, func(t *testing.T) {
			var sum [steps]float64
			for range runs {
				next := l.new()
				for k := range steps {
					ceiling := min(ceil, base<<k)
					d := next()
					if d < 0 || d > ceiling+1 { // cenkalti's range ends at 2·interval+1ns
						t.Fatalf("delay %d = %v, outside [0, %v]", k+1, d, ceiling)
					}
					if l.lib == "retryablehttp" && d != ceiling {
						t.Fatalf("delay %d = %v, want %v (no jitter)", k+1, d, ceiling)
					}
					sum[k] += float64(d)
				}
			}
			if l.lib == "retryablehttp" {
				return
			}
			for k := range steps {
				ceiling := float64(min(ceil, base<<k))
				// The mean of 2000 uniform draws on [0, c] is c/2 with a
				// standard deviation of c/√24000 ≈ 0.0065c.
				if mean := sum[k] / runs; mean < 0.46*ceiling || mean > 0.54*ceiling {
					t.Errorf("mean delay %d = %v, want about %v (full jitter)", k+1, time.Duration(mean), time.Duration(ceiling/2))
				}
			}
		})
	}
}
