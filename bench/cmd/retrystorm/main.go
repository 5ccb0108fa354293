// Command retrystorm prints, as markdown, the retry-storm scenario of the
// seeds: a dependency down for a few seconds under steady load, called by
// clients that retry with recur's runner, with and without each retry
// budget and a circuit breaker (see package outage).
//
//	cd bench && go run ./cmd/retrystorm
//
// With -fleet it prints the fleet table instead: 1,000 instances, each
// with a breaker, on their own and sharing one store (outage.FleetBase;
// the other flags are ignored but -seed).
//
//	cd bench && go run ./cmd/retrystorm -fleet
//
// The run is deterministic: the same flags print the same table.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"

	"github.com/recur-go/recur/bench/outage"
)

func main() {
	var c outage.Config
	flag.Uint64Var(&c.Seed, "seed", 1, "seed of the clients' jitter and the breakers' and budgets' draws")
	flag.IntVar(&c.Clients, "clients", 10, "clients, each with its own budget and breaker")
	flag.IntVar(&c.Rate, "rate", 1000, "requests a second, all clients together")
	flag.DurationVar(&c.Attempt, "attempt", 5e6, "how long an attempt takes")
	flag.DurationVar(&c.Before, "before", 10e9, "healthy before the outage")
	flag.DurationVar(&c.Down, "down", 4e9, "the outage")
	flag.DurationVar(&c.After, "after", 16e9, "healthy after the outage")
	flag.DurationVar(&c.Bucket, "bucket", 1e8, "resolution of the peak load and the recovery time")
	fleet := flag.Bool("fleet", false, "print the fleet table: 1,000 instances' breakers, alone and shared")
	flag.Parse()
	if *fleet {
		printFleet(c.Seed)
		return
	}

	rows, err := outage.Run(c, outage.Scenarios())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%s %s/%s; outage.Config{Seed: %d, Clients: %d, Rate: %d, Attempt: %v, Before: %v, Down: %v, After: %v, Bucket: %v}\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, c.Seed, c.Clients, c.Rate, c.Attempt, c.Before, c.Down, c.After, c.Bucket)
	fmt.Printf("retries: retry.Retry with %v; no retries: %v\n\n", outage.DefaultPolicy, outage.NoRetries)
	if err := outage.WriteTable(os.Stdout, rows); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func printFleet(seed uint64) {
	c := outage.FleetBase
	c.Seed = seed
	rows, err := outage.Run(c, outage.FleetScenarios())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%s %s/%s; outage.Config{Seed: %d, Clients: %d, Rate: %d, Before: %v, Down: %v, After: %v}, breaker.Config{} in each\n\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, c.Seed, c.Clients, c.Rate, c.Before, c.Down, c.After)
	if err := outage.WriteFleetTable(os.Stdout, rows); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
