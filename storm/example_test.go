package storm_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/storm"
)

func ExampleSimulate() {
	s := schedule.FullJitter(10*time.Millisecond, 2*time.Second)
	r, err := storm.Simulate(context.Background(), s, storm.Config{Clients: 20, Runs: 10, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.1f write calls per run, %d runs cut short, partial: %v\n", r.Calls, r.Cut, r.Partial)
	// Output: 100.4 write calls per run, 0 runs cut short, partial: false
}

// A Config beyond the limits is refused before any work.
func ExampleConfig_Validate() {
	err := storm.Config{Clients: 20_000}.Validate()
	fmt.Println(err)
	fmt.Println(errors.Is(err, storm.ErrConfig))
	// Output:
	// storm: invalid Config: Clients 20000 is above the maximum 10000 (MaxClients)
	// true
}

// Progress reports each run; cancelling the context stops Simulate, which
// returns the runs made so far.
func ExampleConfig_progress() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := storm.Config{Clients: 20, Runs: 100, Seed: 1, Progress: func(p storm.Progress) {
		if p.Run == 2 {
			cancel()
		}
	}}
	r, err := storm.Simulate(ctx, schedule.FullJitter(10*time.Millisecond, 2*time.Second), cfg)
	fmt.Println(err)
	fmt.Printf("%d runs, partial: %v\n", r.Runs, r.Partial)
	// Output:
	// storm: stopped after 2 of 100 runs: context canceled
	// 2 runs, partial: true
}
