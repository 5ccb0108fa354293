package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"time"

	"github.com/recur-go/recur/cmd/schedcheck/internal/sat"
	"github.com/recur-go/recur/simulate"
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
Interrupted by Ctrl-C, it prints the attempts so far, with "partial": true.

Limits: --max-attempts 1 to 100000, --attempt-time 0 to 168h, and a policy
of at most 256 nodes.

Examples:
  schedcheck simulate 'backoff(100ms, 30s) & times(5)' --seed 7
  schedcheck simulate 'spaced(10s) upto 1m' --attempt-time 4s
  schedcheck simulate --json 'fulljitter(100ms, 10s)' --max-attempts 20
`

func runSimulate(c *cli, args []string) int {
	fs := c.newFlags("simulate", "[--seed N] [--attempt-time D] [--max-attempts K] [--json] POLICY | -f FILE", simulateHelp)
	file := fs.String("f", "", "read the policy from `FILE`")
	seed := fs.Uint64("seed", 1, "the run's random seed")
	attempt := fs.Duration("attempt-time", 0, "how long each attempt takes, at most 168h")
	max := fs.Int("max-attempts", 1000, "stop after this many attempts, at most 100000")
	asJSON := fs.Bool("json", false, "print one JSON object")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if c.badFlags("simulate", flagRange("max-attempts", *max, 1, maxSimAttempts), flagRange("attempt-time", *attempt, 0, maxAttemptTime)) {
		return exitUsage
	}
	p, status := c.onePolicy(fs, pos, *file)
	if status != exitOK {
		return status
	}
	if err := tooBig(p.s); err != nil {
		c.errorf("simulate: %v", err)
		return exitUsage
	}
	sim := simulate.Run(c.ctx, p.s, *seed, *attempt, *max)
	out := bufio.NewWriter(c.stdout)
	if *asJSON {
		json.NewEncoder(out).Encode(sim)
	} else {
		printTimeline(out, sim, *attempt, *max)
	}
	out.Flush()
	if sim.Partial {
		c.errorf("simulate: interrupted after %d attempts; the output is partial", sim.Attempts)
		return exitInterrupted
	}
	return exitOK
}

// printTimeline prints sim attempt by attempt.
func printTimeline(w *bufio.Writer, sim simulate.Result, attempt time.Duration, max int) {
	fmt.Fprintf(w, "%s  seed %d, attempts take %v\n", sim.Policy, sim.Seed, attempt)
	var t time.Duration
	for i := 0; i < sim.Attempts; i++ {
		fmt.Fprintf(w, "%4d  %12v  attempt %d", i+1, t, i+1)
		t = sat.AddDur(t, attempt)
		if i < len(sim.DelaysNS) {
			fmt.Fprintf(w, " fails, wait %v\n", sim.DelaysNS[i])
			t = sat.AddDur(t, sim.DelaysNS[i])
		} else if sim.Truncated {
			fmt.Fprintf(w, " fails; stopped after --max-attempts %d\n", max)
		} else if sim.Partial {
			fmt.Fprint(w, " fails; interrupted: partial\n")
		} else {
			fmt.Fprint(w, " fails; the schedule stops\n")
		}
	}
	fmt.Fprintf(w, "%d attempts, %v elapsed\n", sim.Attempts, sim.ElapsedNS)
}
