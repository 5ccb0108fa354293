package breakertest_test

import (
	"fmt"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/breaker/breakertest"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/verdict"
)

// Three instances of a service share their breaker on the inventory
// service through a MemStore, as a fleet's would through Redis: five failures in a row across the fleet open all three, and
// only one probe goes out when they half-open.
func ExampleMemStore() {
	clock := clockcap.Virtual(time.Now())
	store := breakertest.NewMemStore(clock)
	var fleet []*breaker.Breaker
	for i := range 3 {
		b, err := breaker.New(breaker.Config{
			Name:  "inventory",
			Clock: clock,
			// The fleet's store; SharedFlush < 0: this example flushes
			// by hand, where a service lets the breaker do it every 5 ms.
			Shared:      store,
			SharedFlush: -1,
			OnStateChange: func(name string, from, to breaker.State) {
				fmt.Printf("instance %d: %s %s -> %s\n", i, name, from, to)
			},
		})
		if err != nil {
			panic(err)
		}
		defer b.Close()
		fleet = append(fleet, b)
	}
	for i := range 5 {
		b := fleet[i%3]
		p, _ := b.Allow()
		b.Record(&p, verdict.Transient)
		b.Flush()
	}
	clock.Advance(5 * time.Second)
	let := map[*breaker.Breaker]*breaker.Permit{}
	for _, b := range fleet {
		if p, err := b.Allow(); err == nil {
			let[b] = &p
		}
	}
	fmt.Println("probes:", len(let))
	for b, p := range let {
		b.Record(p, verdict.Success)
	}
	// Unordered output:
	// instance 1: inventory closed -> open
	// instance 0: inventory closed -> open
	// instance 2: inventory closed -> open
	// instance 0: inventory open -> half-open
	// instance 1: inventory open -> half-open
	// instance 2: inventory open -> half-open
	// probes: 1
	// instance 0: inventory half-open -> closed
	// instance 1: inventory half-open -> closed
	// instance 2: inventory half-open -> closed
}
