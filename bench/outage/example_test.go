package outage_test

import (
	"fmt"
	"time"

	"github.com/recur-go/recur/bench/outage"
)

// A dependency down for 4 s under 1000 requests a second: without a
// budget every request makes its three attempts; with gRPC A6's token
// bucket the retries stop after a handful.
func ExampleSimulate() {
	for _, b := range []outage.Budget{outage.NoBudget, outage.TokenBucket} {
		r, err := outage.Simulate(outage.Config{Seed: 1, Budget: b, Before: 2 * time.Second, After: 2 * time.Second})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("budget %s: %.2f attempts per request during the outage\n", b, r.OutageLoad())
	}
	// Output:
	// budget none: 2.95 attempts per request during the outage
	// budget A6 token bucket: 1.01 attempts per request during the outage
}
