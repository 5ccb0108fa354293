package breaker_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/verdict"
)

// Do guards one call in one line; the judge sees the status, so a 503
// without an error counts against the target.
func ExampleDo() {
	b, err := breaker.New(breaker.Config{Name: "inventory", ConsecutiveFailures: 2, Clock: clockcap.Virtual(time.Now())})
	if err != nil {
		panic(err)
	}
	judge := func(status int, err error) verdict.Verdict {
		if err != nil || status >= 500 {
			return verdict.Transient
		}
		return verdict.Success
	}
	get := func(context.Context) (int, error) { return 503, nil }
	for range 3 {
		status, err := breaker.Do(context.Background(), b, judge, get)
		fmt.Println(status, err, errors.Is(err, breaker.ErrOpen))
	}
	// Output:
	// 503 <nil> false
	// 503 <nil> false
	// 0 breaker inventory: circuit open, an opening of 5s true
}
