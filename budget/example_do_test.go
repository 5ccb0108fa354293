package budget_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/randcap"
)

// Do makes one request under adaptive throttling: against a backend that
// refuses everything, the client soon sheds most requests locally.
func ExampleDo() {
	b, err := budget.NewAdaptive(budget.AdaptiveConfig{Clock: clockcap.Virtual(time.Now()), Random: randcap.Seeded(1)})
	if err != nil {
		panic(err)
	}
	refused := errors.New("503")
	sent, shed := 0, 0
	for range 100 {
		_, err := budget.Do(context.Background(), b, nil, func(context.Context) (int, error) {
			sent++
			return 0, refused
		})
		if errors.Is(err, budget.ErrThrottled) {
			shed++
		}
	}
	fmt.Printf("sent %d, shed %d\n", sent, shed)
	// Output:
	// sent 23, shed 77
}
