package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
)

const plotHelp = `
Plot runs the policy with --seeds different seeds (attempts take no time)
and charts, for each retry, the distribution of its delay — the median and
the band from the 5th to the 95th percentile — and of the cumulative wait.
With -o FILE.svg or FILE.png it writes a chart for a design doc; without -o
it prints a compact text chart. Unbounded policies are cut at --max-retries.

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
	Policy string
	Seeds  int
	Delay  []dist // per retry
	Total  []dist // cumulative wait up to and including that retry
}

func measure(s schedule.Schedule, seeds, maxRetries int) distribution {
	delays := make([][]time.Duration, maxRetries)
	totals := make([][]time.Duration, maxRetries)
	for seed := 1; seed <= seeds; seed++ {
		var total time.Duration
		i := 0
		for d := range interp.Delays(s, uint64(seed)) {
			if i == maxRetries {
				break
			}
			total = schedule.AddSat(total, d)
			delays[i] = append(delays[i], d)
			totals[i] = append(totals[i], total)
			i++
		}
	}
	out := distribution{Policy: s.String(), Seeds: seeds}
	for i := range delays {
		if len(delays[i]) == 0 {
			break
		}
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
	seeds := fs.Int("seeds", 1000, "runs, each with its own seed")
	maxRetries := fs.Int("max-retries", 20, "chart at most this many retries")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if *seeds < 1 || *maxRetries < 1 {
		c.errorf("plot: --seeds and --max-retries must be at least 1")
		return exitUsage
	}
	p, status := c.onePolicy(fs, pos, *file)
	if status != exitOK {
		return status
	}
	d := measure(p.s, *seeds, *maxRetries)
	if *out == "" {
		textChart(c.stdout, d)
		return exitOK
	}
	var data []byte
	switch strings.ToLower(filepath.Ext(*out)) {
	case ".svg":
		data = svgChart(d)
	case ".png":
		data, err = pngChart(d)
		if err != nil {
			c.errorf("plot: %v", err)
			return exitInvalid
		}
	default:
		c.errorf("plot: -o %s: want a .svg or .png file", *out)
		return exitUsage
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		c.errorf("plot: %v", err)
		return exitInvalid
	}
	fmt.Fprintf(c.stdout, "wrote %s: %d retries charted over %d seeds\n", *out, len(d.Delay), d.Seeds)
	return exitOK
}
