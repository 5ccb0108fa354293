package explain_test

import (
	"fmt"

	"github.com/recur-go/recur/explain"
	"github.com/recur-go/recur/parse"
)

func ExampleExplain() {
	s, err := parse.Parse("backoff(100ms, 30s) & times(5)")
	if err != nil {
		fmt.Println(err)
		return
	}
	e := explain.Explain(s)
	fmt.Println(e.Explanation)
	fmt.Println(*e.MaxAttempts, e.Stops)
	// Output:
	// up to 5 attempts; waits grow from 100ms doubling to 30s, each scaled by a random 50–100%; 750ms to 1.5s of waiting in all, then it gives up
	// 5 true
}
