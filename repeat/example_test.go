package repeat_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/repeat"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// Poll every thirty seconds until something breaks. The virtual clock makes
// two minutes of polling take no time.
func ExampleRepeat() {
	clock := clockcap.Virtual(time.Now())
	polls := 0
	n, err := repeat.Repeat(context.Background(), repeat.Options{Caps: retry.Caps{Clock: clock}}, schedule.Spaced{Every: 30 * time.Second}, func(context.Context) error {
		polls++
		fmt.Println("poll at", clock.Elapsed())
		if polls == 5 {
			return errors.New("health check failed")
		}
		return nil
	})
	fmt.Println(n, err)
	// Output:
	// poll at 0s
	// poll at 30s
	// poll at 1m0s
	// poll at 1m30s
	// poll at 2m0s
	// 4 health check failed
}

// A schedule that ends stops the loop without an error: here, a refresh
// every ten minutes for an hour.
func ExampleRepeat_scheduleEnds() {
	clock := clockcap.Virtual(time.Now())
	hourOfRefreshes := schedule.UpTo{Inner: schedule.Spaced{Every: 10 * time.Minute}, Budget: time.Hour}
	n, err := repeat.Repeat(context.Background(), repeat.Options{Caps: retry.Caps{Clock: clock}}, hourOfRefreshes, func(context.Context) error { return nil })
	fmt.Println(n, err, clock.Elapsed())
	// Output: 7 <nil> 1h0m0s
}
