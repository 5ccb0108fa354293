package fold_test

import (
	"fmt"
	"strings"

	"github.com/recur-go/recur/fold"
)

// An exporter of its own keeps one counter per target on its event path,
// at most two targets here, and labels its rows at collection time with
// the same cap.
func Example() {
	type counter struct{ n int }
	counters := fold.NewMap(2, func(target string) *counter { return &counter{} })
	for _, target := range []string{"billing", "search", "billing", "users", "payments"} {
		counters.Get(fold.Value(target)).n++
	}
	for _, label := range []string{"billing", "search", fold.Overflow} {
		fmt.Printf("%s %d\n", label, counters.Get(label).n)
	}

	labels := fold.NewLabels(2)
	fmt.Println(labels.Admit("billing"), labels.Admit("search"), labels.Admit("users"))

	// A long or invalid target still makes a label value.
	v := fold.Value(strings.Repeat("x", 200))
	fmt.Println(len(v), v[100:])
	// Output:
	// billing 2
	// search 1
	// (other) 2
	// billing search (other)
	// 127 xxxxxxxxxx~6ee14c8caecd5c45
}
