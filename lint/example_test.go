package lint_test

import (
	"fmt"
	"time"

	"github.com/recur-go/recur/lint"
	"github.com/recur-go/recur/schedule"
)

func ExampleCheckSource() {
	for _, src := range []string{
		"backoff(100ms, 30s) & times(5)",
		"spaced(1) & times(3)",
		"backoff(30s, 100ms) & times(3)",
	} {
		fs, err := lint.CheckSource(src)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s: %d findings\n", src, len(fs))
		for _, f := range fs {
			fmt.Printf("  %v %s; fix: %s\n", f.Severity, f.ID, f.Fix)
		}
	}
	// Output:
	// backoff(100ms, 30s) & times(5): 0 findings
	// spaced(1) & times(3): 1 findings
	//   error bare-duration; fix: spaced(1s) & times(3)
	// backoff(30s, 100ms) & times(3): 1 findings
	//   error cap-below-base; fix: backoff(100ms, 30s) & times(3)
}

// A cap of 5m is out of reach in 3 attempts (the second wait is 200ms at
// most), so the fix of too-many-attempts keeps it; 20 attempts reach it.
func ExampleCheck() {
	s := schedule.Intersect{A: schedule.FullJitter(100*time.Millisecond, 5*time.Minute), B: schedule.Times{N: 20}}
	for _, f := range lint.Check(s) {
		fmt.Println(f.ID, "—", f.Message)
		fmt.Println("fix:", f.Fix)
	}
	// Output:
	// too-many-attempts — up to 20 attempts: retries at every layer multiply (4 attempts at 3 layers is 64× the load), and by attempt 10 the upstream is gone; allow 3 (5 for very transient faults)
	// fix: fulljitter(100ms, 5m) & times(3)
	// no-cap — a single wait can last 5m0s: longer than any caller waits; cap it at 30s to 60s
	// fix: fulljitter(100ms, 30s) & times(3)
}
