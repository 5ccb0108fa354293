package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/recur-go/recur/cmd/schedcheck/internal/sat"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
)

const plotHelp = `
Plot runs the policy with --seeds different seeds (attempts take no time)
and charts, for each retry, the distribution of its delay — the median and
the band from the 5th to the 95th percentile — and of the cumulative wait.
With -o FILE.svg or FILE.png it writes a chart for a design doc; without -o
it prints a compact text chart. Each retry is numbered by the attempt it
comes before (2 for the first retry), as the playground numbers them. A
policy that retries more than --max-retries times is cut there, and the
chart says so.

Limits: --seeds 1 to 100000, --max-retries 1 to 1000, --seeds times
--max-retries at most 1000000 (the delays plot keeps), and a policy of at
most 256 nodes. A long run shows its progress on a terminal; Ctrl-C stops it
and charts the runs made so far, marked partial.

Examples:
  schedcheck plot 'backoff(100ms, 30s) & times(6)'
  schedcheck plot -o backoff.svg 'fulljitter(100ms, 10s) & times(8)'
  schedcheck plot -o decorrelated.png --seeds 5000 'decorrelated(100ms, 10s)'
`

// dist is the distribution of one quantity at one retry.
type dist struct {
	P5, P50, P95 time.Duration
	N            int // runs that reached this retry
}

// distribution is what plot charts.
type distribution struct {
	Policy  string
	Seeds   int    // seeds run
	Partial string // if not empty, why fewer seeds were run than asked for
	Cut     int    // if not 0, the --max-retries at which some run was cut
	Delay   []dist // per retry
	Total   []dist // cumulative wait up to and including that retry
}

// measure runs s with seeds 1 to seeds, at most maxRetries retries each,
// and reports each seed done to tick. When ctx is done it stops and
// returns what the runs so far measured, marked partial. It keeps the delays of
// every run: seeds × maxRetries of them at most.
func measure(ctx context.Context, s schedule.Schedule, seeds, maxRetries int, tick func(seed int)) distribution {
	var delays, totals [][]time.Duration
	out := distribution{Policy: s.String()}
	for seed := 1; seed <= seeds; seed++ {
		if ctx.Err() != nil {
			out.Partial = fmt.Sprintf("interrupted after %d of %d seeds", out.Seeds, seeds)
			break
		}
		var total time.Duration
		i := 0
		for d := range interp.Delays(s, uint64(seed)) {
			if i == maxRetries {
				out.Cut = maxRetries
				break
			}
			if i == len(delays) {
				delays = append(delays, make([]time.Duration, 0, seeds))
				totals = append(totals, make([]time.Duration, 0, seeds))
			}
			total = sat.AddDur(total, d)
			delays[i] = append(delays[i], d)
			totals[i] = append(totals[i], total)
			i++
		}
		out.Seeds++
		tick(seed)
	}
	for i := range delays {
		out.Delay = append(out.Delay, quantiles(delays[i]))
		out.Total = append(out.Total, quantiles(totals[i]))
	}
	return out
}

func quantiles(xs []time.Duration) dist {
	slices.Sort(xs)
	q := func(p float64) time.Duration { return xs[int(p*float64(len(xs)-1)+0.5)] }
	return dist{P5: q(0.05), P50: q(0.5), P95: q(0.95), N: len(xs)}
}

func runPlot(c *cli, args []string) int {
	fs := c.newFlags("plot", "[-o FILE.svg|FILE.png] [--seeds N] [--max-retries K] POLICY | -f FILE", plotHelp)
	file := fs.String("f", "", "read the policy from `FILE`")
	out := fs.String("o", "", "write the chart to `FILE` (.svg or .png) instead of the terminal")
	seeds := fs.Int("seeds", 1000, "runs, each with its own seed, at most 100000")
	maxRetries := fs.Int("max-retries", 20, "chart at most this many retries, at most 1000")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if c.badFlags("plot", flagRange("seeds", *seeds, 1, maxPlotSeeds), flagRange("max-retries", *maxRetries, 1, maxPlotRetries)) {
		return exitUsage
	}
	if n := *seeds * *maxRetries; n > maxPlotSamples {
		c.errorf("plot: --seeds %d × --max-retries %d = %d delays, above the maximum %d", *seeds, *maxRetries, n, maxPlotSamples)
		return exitUsage
	}
	if ext := strings.ToLower(filepath.Ext(*out)); *out != "" && ext != ".svg" && ext != ".png" {
		c.errorf("plot: -o %s: want a .svg or .png file", *out)
		return exitUsage
	}
	p, status := c.onePolicy(fs, pos, *file)
	if status != exitOK {
		return status
	}
	if err := tooBig(p.s); err != nil {
		c.errorf("plot: %v", err)
		return exitUsage
	}
	m := c.meter()
	d := measure(c.ctx, p.s, *seeds, *maxRetries, func(seed int) { m.printf("plot: seed %d of %d", seed, *seeds) })
	m.clear()
	if status := c.writePlot(d, *out); status != exitOK {
		return status
	}
	if d.Partial != "" {
		c.errorf("plot: %s; the chart is partial", d.Partial)
		return exitInterrupted
	}
	return exitOK
}

// writePlot prints d as a text chart, or writes it to the file out.
func (c *cli) writePlot(d distribution, out string) int {
	if out == "" {
		textChart(c.stdout, d)
		return exitOK
	}
	var data []byte
	var err error
	switch strings.ToLower(filepath.Ext(out)) {
	case ".svg":
		data = svgChart(d)
	default: // .png, as runPlot checked
		data, err = pngChart(d)
		if err != nil {
			c.errorf("plot: %v", err)
			return exitInvalid
		}
	}
	if err := os.WriteFile(out, data, 0o644); err != nil {
		c.errorf("plot: %v", err)
		return exitInvalid
	}
	fmt.Fprintf(c.stdout, "wrote %s: %d retries charted over %d seeds\n", out, len(d.Delay), d.Seeds)
	if d.Cut > 0 {
		fmt.Fprintf(c.stdout, "%s\n", cutNote(d.Cut))
	}
	return exitOK
}

// cutNote says that the chart stops at --max-retries although the policy
// goes on.
func cutNote(maxRetries int) string {
	return fmt.Sprintf("cut at --max-retries %d: the policy retries more; raise --max-retries to chart more", maxRetries)
}
