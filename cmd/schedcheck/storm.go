package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/recur-go/recur/simulate"
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

Limits: --clients 1 to 10000, --runs 1 to 10000, --clients times --runs
at most 1000000; at most 8 policies, each of at most 256 nodes, and
--clients times a policy's nodes at most 262144. A policy's simulation
makes at most 1000000 write calls, all runs together: a run is cut short
after 1000000 / --runs of them (runs_cut_short counts it). A long run
shows its progress on a terminal; Ctrl-C stops it and prints the rows so
far, the last one marked partial.

With --hedge it runs another experiment: the policies are hedging
policies (retry.Hedge), and --calls calls each send a copy at every delay
of the policy while no copy has answered, each copy taking a latency drawn
from a log-normal distribution with the median and 99th percentile of
--latency (independently). The table gives the extra load (copies sent
beyond one a call) and the p50, p95 and p99 latency without and with the
hedge. A hedge at about the p95 latency costs about 5% more load and
brings the p99 down to about the p95 plus a typical answer. Limits:
--calls 1 to 1000000.

Examples:
  schedcheck storm 'exponential(10ms, 200%, 2s)' 'fulljitter(10ms, 2s)' \
      'jittered(exponential(10ms, 200%, 2s), 50%, 100%)' 'decorrelated(5ms, 2s)'
  schedcheck storm --clients 200 --json 'backoff(100ms, 30s) & times(5)'
  schedcheck storm --hedge --latency 20ms,200ms 'spaced(100ms) & times(2)' 'spaced(50ms) & times(3)'
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
	Partial bool    `json:"partial,omitempty"` // Ctrl-C stopped it after Runs runs
}

func runStorm(c *cli, args []string) int {
	fs := c.newFlags("storm", "[--clients N] [--runs R] [--seed S] [--json] POLICY... | --hedge [--latency MEDIAN,P99] [--calls N] POLICY...", stormHelp)
	clients := fs.Int("clients", 50, "contending clients, at most 10000")
	runs := fs.Int("runs", 100, "runs to average, at most 10000")
	seed := fs.Uint64("seed", 1, "seed of the network and the clients")
	asJSON := fs.Bool("json", false, "print one JSON object per policy")
	hedge := fs.Bool("hedge", false, "model hedged calls instead: the extra load and the tail latency of each hedging policy")
	latency := fs.String("latency", "20ms,200ms", "with --hedge: the median and the p99 latency of one copy, `MEDIAN,P99`")
	calls := fs.Int("calls", 100000, "with --hedge: calls to model, at most 1000000")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) == 0 {
		c.errorf("storm: need at least one policy")
		fs.Usage()
		return exitUsage
	}
	if *hedge {
		return c.stormHedge(pos, *latency, *calls, *seed, *asJSON)
	}
	if c.badFlags("storm", flagRange("clients", *clients, 1, storm.MaxClients), flagRange("runs", *runs, 1, storm.MaxRuns)) {
		return exitUsage
	}
	if n := *clients * *runs; n > storm.MaxWork {
		c.errorf("storm: --clients %d × --runs %d = %d write calls at the least, above the maximum %d", *clients, *runs, n, storm.MaxWork)
		return exitUsage
	}
	if len(pos) > maxStormPolicies {
		c.errorf("storm: %d policies; storm compares at most %d at a time", len(pos), maxStormPolicies)
		return exitUsage
	}
	cfg := storm.Config{Clients: *clients, Runs: *runs, Seed: *seed}
	ps := parseAll(argSources(pos))
	for _, p := range ps {
		if p.err != nil {
			c.reportError(p)
			return exitInvalid
		}
		if err := storm.Check(p.s, cfg); err != nil {
			c.errorf("%s: %v", p.src.name, err)
			return exitUsage
		}
	}
	rows, err := c.storm(ps, cfg)
	if *asJSON {
		enc := json.NewEncoder(c.stdout)
		for _, r := range rows {
			enc.Encode(r)
		}
	} else {
		stormTable(c.stdout, rows, *clients, *runs, *seed)
	}
	switch {
	case errors.Is(err, storm.ErrConfig):
		c.errorf("%v", err)
		return exitUsage
	case err != nil:
		c.errorf("%v; the output is partial", err)
		return exitInterrupted
	}
	return exitOK
}

// storm simulates each policy in turn, showing the progress on a terminal.
// When the context is done it returns the rows so far, the last one
// partial, and an error that says where it stopped.
func (c *cli) storm(ps []parsed, cfg storm.Config) ([]stormRow, error) {
	var rows []stormRow
	m := c.meter()
	defer m.clear()
	for i, p := range ps {
		cfg.Progress = func(pr storm.Progress) {
			m.printf("storm: policy %d of %d: run %d of %d, %d write calls", i+1, len(ps), pr.Run, pr.Runs, pr.Calls)
		}
		r, err := storm.Simulate(c.ctx, p.s, cfg)
		if r.Runs > 0 {
			rows = append(rows, stormRow{Policy: p.s.String(), Clients: r.Clients, Runs: r.Runs, Calls: r.Calls, TimeNS: int64(r.Time), GaveUp: r.GaveUp, Cut: r.Cut, Partial: r.Partial})
		}
		if err != nil && !errors.Is(err, storm.ErrConfig) {
			return rows, fmt.Errorf("storm: interrupted during policy %d of %d after %d of %d runs", i+1, len(ps), r.Runs, cfg.Runs)
		}
		if err != nil {
			return rows, err
		}
	}
	return rows, nil
}

// stormTable prints the rows as a table; a partial row and one with runs
// cut short are marked.
func stormTable(w io.Writer, rows []stormRow, clients, runs int, seed uint64) {
	fmt.Fprintf(w, "%d clients, %d runs, seed %d\n", clients, runs, seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "calls\ttime to last\tgave up\t\tpolicy\n")
	for _, r := range rows {
		policy := r.Policy
		if r.Cut > 0 {
			policy += fmt.Sprintf(" (%d runs cut short at %d write calls)", r.Cut, storm.MaxWork/runs)
		}
		if r.Partial {
			policy += fmt.Sprintf(" (partial: %d of %d runs)", r.Runs, runs)
		}
		fmt.Fprintf(tw, "%.1f\t%v\t%.1f\t\t%s\n", r.Calls, time.Duration(r.TimeNS).Round(time.Millisecond), r.GaveUp, policy)
	}
	tw.Flush()
}

// stormHedge is storm --hedge: simulate.Hedge for each policy.
func (c *cli) stormHedge(pos []string, latency string, calls int, seed uint64, asJSON bool) int {
	lat, err := parseLatency(latency)
	if err == nil {
		err = lat.Check()
	}
	if err != nil {
		c.errorf("storm: --latency %s: %v", latency, err)
		return exitUsage
	}
	if c.badFlags("storm", flagRange("calls", calls, 1, simulate.MaxHedgeCalls)) {
		return exitUsage
	}
	if len(pos) > maxStormPolicies {
		c.errorf("storm: %d policies; storm compares at most %d at a time", len(pos), maxStormPolicies)
		return exitUsage
	}
	ps := parseAll(argSources(pos))
	var rows []simulate.HedgeResult
	for _, p := range ps {
		if p.err != nil {
			c.reportError(p)
			return exitInvalid
		}
		r, err := simulate.Hedge(c.ctx, p.s, lat, calls, seed)
		if err != nil {
			c.errorf("storm: %s: %v", p.src.name, err)
			return exitInterrupted
		}
		rows = append(rows, r)
	}
	if asJSON {
		enc := json.NewEncoder(c.stdout)
		for _, r := range rows {
			enc.Encode(r)
		}
		return exitOK
	}
	fmt.Fprintf(c.stdout, "%d calls, one copy's latency: median %v, p99 %v; seed %d\n", calls, lat.Median, lat.P99, seed)
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "extra load\tp50\tp95\tp99\t\tpolicy\n")
	ms := func(a, b time.Duration) string {
		return fmt.Sprintf("%v → %v", a.Round(100*time.Microsecond), b.Round(100*time.Microsecond))
	}
	for _, r := range rows {
		fmt.Fprintf(tw, "+%.1f%%\t%s\t%s\t%s\t\t%s\n", 100*r.Extra, ms(r.Plain.P50, r.Hedged.P50), ms(r.Plain.P95, r.Hedged.P95), ms(r.Plain.P99, r.Hedged.P99), r.Policy)
	}
	tw.Flush()
	return exitOK
}

// parseLatency reads --latency's MEDIAN,P99.
func parseLatency(s string) (simulate.Latency, error) {
	med, p99, ok := strings.Cut(s, ",")
	if !ok {
		return simulate.Latency{}, errors.New("want MEDIAN,P99, such as 20ms,200ms")
	}
	m, err := time.ParseDuration(strings.TrimSpace(med))
	if err != nil {
		return simulate.Latency{}, err
	}
	p, err := time.ParseDuration(strings.TrimSpace(p99))
	if err != nil {
		return simulate.Latency{}, err
	}
	return simulate.Latency{Median: m, P99: p}, nil
}
