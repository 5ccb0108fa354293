package simulate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// Latency is a distribution of a call's latency: log-normal, the usual
// shape of a service's response times (a body of fast answers and a long
// tail), given by its median and its 99th percentile.
type Latency struct {
	Median time.Duration `json:"median_ns"`
	P99    time.Duration `json:"p99_ns"`
}

// z99 is the standard normal's 99th percentile.
const z99 = 2.3263478740408408

// Check returns an error unless l is a distribution: a positive Median
// and a P99 at least as long.
func (l Latency) Check() error {
	if l.Median <= 0 || l.P99 < l.Median {
		return fmt.Errorf("simulate: latency median %v, p99 %v: want 0 < median <= p99", l.Median, l.P99)
	}
	return nil
}

// sigma is the spread of log latency.
func (l Latency) sigma() float64 { return math.Log(float64(l.P99)/float64(l.Median)) / z99 }

// Quantile returns the latency below which a fraction q of calls answer,
// for 0 < q < 1: Quantile(0.95) is the p95, the usual hedging delay.
func (l Latency) Quantile(q float64) time.Duration {
	z := math.Sqrt2 * math.Erfinv(2*q-1)
	return time.Duration(float64(l.Median) * math.Exp(l.sigma()*z))
}

func (l Latency) draw(r *rand.Rand) time.Duration {
	return time.Duration(float64(l.Median) * math.Exp(l.sigma()*r.NormFloat64()))
}

// Percentiles are three points of a latency distribution.
type Percentiles struct {
	P50 time.Duration `json:"p50_ns"`
	P95 time.Duration `json:"p95_ns"`
	P99 time.Duration `json:"p99_ns"`
}

func percentiles(ds []time.Duration) Percentiles {
	slices.Sort(ds)
	at := func(q float64) time.Duration { return ds[min(int(q*float64(len(ds))), len(ds)-1)] }
	return Percentiles{P50: at(0.50), P95: at(0.95), P99: at(0.99)}
}

// HedgeResult is what hedging does to a load: how many copies the calls
// sent and how their latency changed. Its JSON form is
// `schedcheck storm --hedge --json`'s output.
type HedgeResult struct {
	Policy string  `json:"policy"` // the hedging schedule, canonical
	Calls  int     `json:"calls"`
	Copies int     `json:"copies"` // copies sent in all, the first ones included
	Extra  float64 `json:"extra"`  // the extra load: Copies/Calls - 1, 0.05 for 5%
	// Plain is the latency of the calls without hedging (their first
	// copies), Hedged with it.
	Plain  Percentiles `json:"plain"`
	Hedged Percentiles `json:"hedged"`
}

// Hedge models calls hedged on s (see retry.Hedge) whose copies each take
// a latency drawn from lat, independently: a copy starts at each delay s
// gives while no copy has answered, and the call ends at the first answer.
// It runs calls calls with the given seed and reports the copies sent and
// the latency with and without hedging; every copy answers (hedges answer
// slowness, not failure). Like retry.Hedge it starts at most
// retry.MaxCopies copies a call. It checks ctx every 1024 calls and
// returns ctx's error if it ends.
//
// A hedge at the p95 latency sends a second copy for the 5% of calls
// slower than that, so it costs about 5% more load and cuts the p99 to
// about the p95 plus a fast answer.
func Hedge(ctx context.Context, s schedule.Schedule, lat Latency, calls int, seed uint64) (HedgeResult, error) {
	if err := schedule.Validate(s); err != nil {
		return HedgeResult{}, err
	}
	if err := lat.Check(); err != nil {
		return HedgeResult{}, err
	}
	if calls < 1 || calls > MaxHedgeCalls {
		return HedgeResult{}, fmt.Errorf("simulate: %d calls: want 1 to %d", calls, MaxHedgeCalls)
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	res := HedgeResult{Policy: s.String(), Calls: calls}
	plain := make([]time.Duration, calls)
	hedged := make([]time.Duration, calls)
	for i := range calls {
		if i%1024 == 1023 && ctx.Err() != nil {
			return HedgeResult{}, errors.Join(errors.New("simulate: hedge stopped early"), ctx.Err())
		}
		r := interp.Start(s, rng.Uint64())
		var start time.Duration // of the last copy, from the call's start
		best := time.Duration(math.MaxInt64)
		for n := 1; ; n++ {
			l := lat.draw(rng)
			if n == 1 {
				plain[i] = l
			}
			res.Copies++
			best = min(best, start+l)
			if n == retry.MaxCopies {
				break
			}
			d, ok := r.Next(start, start) // as if the copy ended as it started
			if !ok || start+d >= best {
				break // no copy left, or an answer came first
			}
			start += d
		}
		hedged[i] = best
	}
	res.Extra = float64(res.Copies)/float64(calls) - 1
	res.Plain, res.Hedged = percentiles(plain), percentiles(hedged)
	return res, nil
}

// MaxHedgeCalls is the most calls Hedge models in one run.
const MaxHedgeCalls = 1_000_000
