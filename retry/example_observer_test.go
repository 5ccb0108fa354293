package retry_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// An Observer sees every attempt, retry, give-up and recovery, with the
// call's target: what a metrics or tracing adapter counts.
func ExampleObserver() {
	retries := map[string]int{} // retries per target
	obs := retry.ObserverFunc(func(_ context.Context, e retry.Event) {
		switch e.Kind {
		case retry.Retrying:
			retries[e.Target]++
		case retry.GaveUp:
			fmt.Printf("%s: gave up after %d attempts: %v\n", e.Target, e.Attempt, e.Reason)
		}
	})
	o := retry.Options{
		Caps:     retry.Caps{Clock: clockcap.Virtual(time.Now()), Random: randcap.Seeded(1)},
		Observer: obs,
		Target:   "https://api.example.com:443",
	}
	_, err := retry.Retry(context.Background(), o, schedule.Times{N: 3}, func(context.Context) (int, error) {
		return 0, errors.New("connection refused")
	})
	fmt.Println(retries, err != nil)
	// Output:
	// https://api.example.com:443: gave up after 3 attempts: schedule exhausted
	// map[https://api.example.com:443:2] true
}
