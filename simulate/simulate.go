// Package simulate runs a retry policy on a virtual clock, where every
// attempt fails, and reports the waits it chose.
//
// Run is one run with one random seed: it is what `schedcheck simulate`
// prints and what the browser playground plots as points. Band runs many
// seeds and gives, for each retry, the least, median and greatest wait,
// which the playground draws as a band around the points.
package simulate

import (
	"context"
	"slices"
	"time"

	"github.com/recur-go/recur/internal/sat"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
)

// Result is one run. Its JSON form is `schedcheck simulate --json`'s
// output, a documented contract.
type Result struct {
	Policy    string          `json:"policy"`    // the canonical form
	Seed      uint64          `json:"seed"`      // the random seed of the jitter
	Attempts  int             `json:"attempts"`  // attempts made, the first included
	DelaysNS  []time.Duration `json:"delays_ns"` // the wait after each failed attempt but the last
	ElapsedNS time.Duration   `json:"elapsed_ns"`
	Truncated bool            `json:"truncated"`         // stopped at max attempts, not by the policy
	Partial   bool            `json:"partial,omitempty"` // ctx ended the run early
}

// Run runs s with the given seed and attempts of the given length until it
// stops, max attempts were made or ctx is done, which it checks every 1024
// attempts. ElapsedNS is the virtual time from the first attempt's start
// to the last attempt's end.
func Run(ctx context.Context, s schedule.Schedule, seed uint64, attempt time.Duration, max int) Result {
	sim := Result{Policy: s.String(), Seed: seed, DelaysNS: []time.Duration{}}
	r := interp.Start(s, seed)
	var t time.Duration
	for {
		sim.Attempts++
		start, end := t, sat.AddDur(t, attempt)
		sim.ElapsedNS = end
		d, ok := r.Next(start, end)
		if !ok {
			return sim
		}
		if sim.Attempts >= max {
			sim.Truncated = true
			return sim
		}
		if sim.Attempts%1024 == 0 && ctx.Err() != nil {
			sim.Partial = true
			return sim
		}
		sim.DelaysNS = append(sim.DelaysNS, d)
		t = sat.AddDur(end, d)
	}
}

// Spread is the distribution of one retry's wait over many seeds.
type Spread struct {
	Min    time.Duration `json:"min_ns"`
	Median time.Duration `json:"median_ns"`
	Max    time.Duration `json:"max_ns"`
	N      int           `json:"n"` // runs that reached this retry
}

// Band runs s with seeds 1 to seeds, attempts taking no time and at most
// maxRetries retries each, and returns the spread of each retry's wait.
// It keeps seeds × maxRetries delays at most.
func Band(s schedule.Schedule, seeds, maxRetries int) []Spread {
	var delays [][]time.Duration
	for seed := 1; seed <= seeds; seed++ {
		r := Run(context.Background(), s, uint64(seed), 0, maxRetries+1)
		for i, d := range r.DelaysNS {
			if i == len(delays) {
				delays = append(delays, make([]time.Duration, 0, seeds))
			}
			delays[i] = append(delays[i], d)
		}
	}
	out := make([]Spread, len(delays))
	for i, ds := range delays {
		slices.Sort(ds)
		out[i] = Spread{Min: ds[0], Median: ds[len(ds)/2], Max: ds[len(ds)-1], N: len(ds)}
	}
	return out
}
