// Command outcomes runs each peer's default retry policy, written as a
// recur schedule (package defaults), and recur's own through Brooker's
// contention simulation (package storm), and prints a markdown table: for
// N clients contending for one row, the write calls per run, the time
// until the last client succeeded, and the clients that gave up.
//
//	cd bench && go run ./cmd/outcomes
package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/recur-go/recur/bench/defaults"
	"github.com/recur-go/recur/storm"
)

func main() {
	runs := flag.Int("runs", 100, "runs averaged per cell")
	seed := flag.Uint64("seed", 1, "storm.Config.Seed")
	flag.Parse()
	clients := []int{10, 50, 100, 200}

	fmt.Printf("%s %s/%s; storm.Simulate(ctx, s, storm.Config{Clients: N, Runs: %d, Seed: %d}), network delay |Normal(10ms, 2ms)| each way.\n\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, *runs, *seed)
	var b strings.Builder
	b.WriteString("| policy |")
	for _, n := range clients {
		fmt.Fprintf(&b, " N = %d |", n)
	}
	b.WriteString("\n|---|")
	for range clients {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	policies := append(defaults.Ours(), defaults.Peers()...)
	for _, p := range policies {
		fmt.Fprintf(&b, "| %s |", p.Name)
		for _, n := range clients {
			r, err := storm.Simulate(context.Background(), p.Schedule, storm.Config{Clients: n, Runs: *runs, Seed: *seed})
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			fmt.Fprintf(&b, " %s |", cell(r))
		}
		b.WriteString("\n")
	}
	fmt.Print(b.String())

	fmt.Print("\nEach cell: write calls per run (the work) / time until the last client succeeded / clients per run that gave up. Averages over the runs.\n\n")
	fmt.Print("| policy | as a schedule | from | what the schedule does not say |\n|---|---|---|---|\n")
	for _, p := range policies {
		differs := p.Differs
		if differs == "" {
			differs = "—"
		}
		fmt.Printf("| %s | `%v` | %s | %s |\n", p.Name, p.Schedule, p.Source, differs)
	}
	for _, lib := range slices.Sorted(maps.Keys(defaults.Missing)) {
		fmt.Printf("| %s | — | %s | |\n", lib, defaults.Missing[lib])
	}
}

// cell formats one result: calls / time / gave up, and the runs cut short
// at storm's call limit, if any.
func cell(r storm.Result) string {
	s := fmt.Sprintf("%.0f / %v / %.1f", r.Calls, round(r.Time), r.GaveUp)
	if r.Cut > 0 {
		s += fmt.Sprintf(" (%d runs cut)", r.Cut)
	}
	return s
}

// round keeps three significant digits.
func round(d time.Duration) time.Duration {
	unit := time.Duration(1)
	for d/unit >= 1000 {
		unit *= 10
	}
	return d.Round(unit)
}
