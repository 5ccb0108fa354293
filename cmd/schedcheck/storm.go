package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/recur-go/recur/storm"
)

const stormHelp = `
Storm runs the contention experiment of Marc Brooker's "Exponential Backoff
and Jitter": --clients clients start together and each tries once to update
one row with optimistic concurrency (read the version, write it back if
unchanged), over a network whose one-way delay is |Normal(10ms, 2ms)|. A
client whose write lost retries on its policy. The table compares the
policies: write calls per run (the work the store did), time until the last
client succeeded, and clients that gave up because their policy stopped,
averaged over --runs runs.

Examples:
  schedcheck storm 'exponential(10ms, 200%, 2s)' 'fulljitter(10ms, 2s)' \
      'jittered(exponential(10ms, 200%, 2s), 50%, 100%)' 'decorrelated(5ms, 2s)'
  schedcheck storm --clients 200 --json 'backoff(100ms, 30s) & times(5)'
`

// stormRow is storm's JSON output for one policy.
type stormRow struct {
	Policy  string  `json:"policy"`
	Clients int     `json:"clients"`
	Runs    int     `json:"runs"`
	Calls   float64 `json:"calls"`
	TimeNS  int64   `json:"time_ns"`
	GaveUp  float64 `json:"gave_up"`
	Cut     int     `json:"runs_cut_short"`
}

func runStorm(c *cli, args []string) int {
	fs := c.newFlags("storm", "[--clients N] [--runs R] [--seed S] [--json] POLICY...", stormHelp)
	clients := fs.Int("clients", 50, "contending clients")
	runs := fs.Int("runs", 100, "runs to average")
	seed := fs.Uint64("seed", 1, "seed of the network and the clients")
	asJSON := fs.Bool("json", false, "print one JSON object per policy")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) == 0 || *clients < 1 || *runs < 1 {
		c.errorf("storm: need at least one policy, --clients ≥ 1 and --runs ≥ 1")
		fs.Usage()
		return exitUsage
	}
	ps := parseAll(argSources(pos))
	for _, p := range ps {
		if p.err != nil {
			c.reportError(p)
			return exitInvalid
		}
	}
	cfg := storm.Config{Clients: *clients, Runs: *runs, Seed: *seed}
	var rows []stormRow
	for _, p := range ps {
		r := storm.Simulate(p.s, cfg)
		rows = append(rows, stormRow{Policy: p.s.String(), Clients: r.Clients, Runs: r.Runs, Calls: r.Calls, TimeNS: int64(r.Time), GaveUp: r.GaveUp, Cut: r.Cut})
	}
	if *asJSON {
		enc := json.NewEncoder(c.stdout)
		for _, r := range rows {
			enc.Encode(r)
		}
		return exitOK
	}
	fmt.Fprintf(c.stdout, "%d clients, %d runs, seed %d\n", *clients, *runs, *seed)
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "calls\ttime to last\tgave up\t\tpolicy\n")
	for _, r := range rows {
		fmt.Fprintf(tw, "%.1f\t%v\t%.1f\t\t%s\n", r.Calls, time.Duration(r.TimeNS).Round(time.Millisecond), r.GaveUp, r.Policy)
	}
	tw.Flush()
	return exitOK
}
