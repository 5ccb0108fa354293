package budget_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/verdict"
)

// A hand-written retry loop with gRPC's token bucket: the target is down,
// and after five failures the bucket stops the retries, so each later call
// makes one attempt instead of three.
func Example() {
	b, _ := budget.NewTokenBucket(budget.TokenBucketConfig{}) // 10 tokens, 0.1 per success
	attempts := 0
	call := func() error {
		b.Request()
		for n := 1; ; n++ {
			attempts++
			err := errors.New("unavailable") // the target is down
			b.Record(verdict.Transient)
			if n == 3 || !b.AllowRetry() {
				return err
			}
		}
	}
	for i := range 6 {
		before := attempts
		call()
		fmt.Printf("call %d: attempts %d, tokens left %.0f\n", i+1, attempts-before, b.Tokens())
	}
	fmt.Printf("%+v\n", b.Stats())
	// Output:
	// call 1: attempts 3, tokens left 7
	// call 2: attempts 2, tokens left 5
	// call 3: attempts 1, tokens left 4
	// call 4: attempts 1, tokens left 3
	// call 5: attempts 1, tokens left 2
	// call 6: attempts 1, tokens left 1
	// {Requests:6 Refused:0 Retries:3 Throttled:5 Tokens:1}
}

// The SRE retry ratio: retries may be 10% of calls, plus a floor.
func ExampleRatio() {
	clock := clockcap.Virtual(time.Now())
	r, _ := budget.NewRatio(budget.RatioConfig{Percent: 10, MinPerSecond: -1, Clock: clock})
	for range 50 {
		r.Request()
	}
	allowed := 0
	for range 20 {
		if r.AllowRetry() {
			allowed++
		}
	}
	fmt.Println(allowed, "of 20 retries allowed after 50 calls")
	// Output:
	// 5 of 20 retries allowed after 50 calls
}

// Adaptive throttling refuses calls locally once the target accepts fewer
// than one in K.
func ExampleAdaptive() {
	clock := clockcap.Virtual(time.Now())
	a, _ := budget.NewAdaptive(budget.AdaptiveConfig{Clock: clock, Random: randcap.Seeded(1)})
	for range 50 { // healthy
		if a.Request() {
			a.Record(verdict.Success)
		}
	}
	for range 150 { // overloaded: every call gets a 429
		if a.Request() {
			a.Record(verdict.Retryable)
		}
	}
	// 200 calls, 50 accepted: (200 − 2·50)/(200 + 8)
	fmt.Printf("refusing %.0f%% of calls\n", 100*a.Probability())
	// Output:
	// refusing 48% of calls
}

// A registry keeps one budget per target.
func ExampleRegistry() {
	r, _ := budget.NewRegistry(budget.TokenBucketConfig{}, 0)
	r.Get("https://a.example:443").Record(verdict.Transient)
	for target, b := range r.All() {
		fmt.Println(target, b.Stats().Tokens)
	}
	// Output:
	// https://a.example:443 9
}
