package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
)

const simulateHelp = `
Simulate runs the policy on a virtual clock: every attempt fails and takes
--attempt-time, and the schedule decides after each one. It stops when the
schedule stops, or after --max-attempts attempts (then "truncated" is true).
The output is the timeline; with --json, exactly one object:

  {"policy": "<canonical>", "seed": N, "attempts": A, "delays_ns": [...],
   "elapsed_ns": E, "truncated": false}

where delays_ns are the waits between attempts and elapsed_ns is the
virtual time from the first attempt's start to the last attempt's end.

Examples:
  schedcheck simulate 'backoff(100ms, 30s) & times(5)' --seed 7
  schedcheck simulate 'spaced(10s) upto 1m' --attempt-time 4s
  schedcheck simulate --json 'fulljitter(100ms, 10s)' --max-attempts 20
`

// simulation is simulate's result; its JSON form is the documented contract.
type simulation struct {
	Policy    string          `json:"policy"`
	Seed      uint64          `json:"seed"`
	Attempts  int             `json:"attempts"`
	DelaysNS  []time.Duration `json:"delays_ns"`
	ElapsedNS time.Duration   `json:"elapsed_ns"`
	Truncated bool            `json:"truncated"`
}

// simulate runs s with attempts of the given length until it stops or
// max attempts were made.
func simulate(s schedule.Schedule, seed uint64, attempt time.Duration, max int) simulation {
	sim := simulation{Policy: s.String(), Seed: seed, DelaysNS: []time.Duration{}}
	r := interp.Start(s, seed)
	var t time.Duration
	for {
		sim.Attempts++
		start, end := t, schedule.AddSat(t, attempt)
		sim.ElapsedNS = end
		d, ok := r.Next(start, end)
		if !ok {
			return sim
		}
		if sim.Attempts >= max {
			sim.Truncated = true
			return sim
		}
		sim.DelaysNS = append(sim.DelaysNS, d)
		t = schedule.AddSat(end, d)
	}
}

func runSimulate(c *cli, args []string) int {
	fs := c.newFlags("simulate", "[--seed N] [--attempt-time D] [--max-attempts K] [--json] POLICY | -f FILE", simulateHelp)
	file := fs.String("f", "", "read the policy from `FILE`")
	seed := fs.Uint64("seed", 1, "the run's random seed")
	attempt := fs.Duration("attempt-time", 0, "how long each attempt takes")
	max := fs.Int("max-attempts", 1000, "stop after this many attempts")
	asJSON := fs.Bool("json", false, "print one JSON object")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if *max < 1 || *attempt < 0 {
		c.errorf("simulate: --max-attempts must be at least 1 and --attempt-time not negative")
		return exitUsage
	}
	p, status := c.onePolicy(fs, pos, *file)
	if status != exitOK {
		return status
	}
	sim := simulate(p.s, *seed, *attempt, *max)
	if *asJSON {
		enc := json.NewEncoder(c.stdout)
		enc.Encode(sim)
		return exitOK
	}
	fmt.Fprintf(c.stdout, "%s  seed %d, attempts take %v\n", sim.Policy, sim.Seed, *attempt)
	var t time.Duration
	for i := 0; i < sim.Attempts; i++ {
		fmt.Fprintf(c.stdout, "%4d  %12v  attempt %d", i+1, t, i+1)
		t = schedule.AddSat(t, *attempt)
		if i < len(sim.DelaysNS) {
			fmt.Fprintf(c.stdout, " fails, wait %v\n", sim.DelaysNS[i])
			t = schedule.AddSat(t, sim.DelaysNS[i])
		} else if sim.Truncated {
			fmt.Fprintf(c.stdout, " fails; stopped after --max-attempts %d\n", *max)
		} else {
			fmt.Fprint(c.stdout, " fails; the schedule stops\n")
		}
	}
	fmt.Fprintf(c.stdout, "%d attempts, %v elapsed\n", sim.Attempts, sim.ElapsedNS)
	return exitOK
}
