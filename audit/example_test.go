package audit_test

import (
	"fmt"
	"math"
	"time"

	"github.com/recur-go/recur/audit"
	"github.com/recur-go/recur/parse"
)

func Example() {
	plan := []byte(`
dependency: db
deadline: 5s
layers:
  - name: api
    retry: fulljitter(100ms, 1s) & times(3)
    attempt_timeout: 1s
    propagates_deadline: true
    breaker: {slow_call: 500ms}
    budget: {kind: token_bucket}
  - name: db-client
    retry: fulljitter(50ms, 1s) & times(3)
    attempt_timeout: 200ms
    propagates_deadline: true
    breaker: {slow_call: 100ms}
    budget: {kind: ratio, percent: 10}
`)
	p, err := audit.Decode(plan)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(audit.Run(p))
	// Output:
	// FAIL: score 80/100, 1 error
	//
	// error   retry-amplification (plan): 2 layers retry (attempts: api 3 × db-client 3): one request can make 9 attempts on db, the product of every layer's attempts
	//
	// recommendations:
	//   - retry only at db-client, the layer right above db; let the others answer "overloaded; don't retry" (503 with Retry-After) and set their retry to times(1)
}

func ExampleMaxAttempts() {
	s, _ := parse.Parse("fulljitter(100ms, 5s) upto 10s")
	fmt.Println(audit.MaxAttempts(s, 0) == math.MaxInt) // attempts that fail at once: no bound
	fmt.Println(audit.MaxAttempts(s, 2*time.Second))    // at least 2s each: 0, 2, 4, 6, 8, 10s
	// Output:
	// true
	// 6
}
