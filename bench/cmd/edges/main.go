// Command edges prints, as markdown, what each library's backoff delay does
// at the edges: after 100, 10 000 and 10⁷ steps with no cap and with a cap
// at the largest Duration, and with a zero base. See package edges.
//
//	cd bench && go run ./cmd/edges
//
// It takes a few minutes: every case runs 10⁷ steps of the library's own
// code, and failsafe-go's run through its retry executor.
package main

import (
	"fmt"
	"os"
	"runtime"

	"github.com/recur-go/recur/bench/edges"
)

func main() {
	fmt.Printf("%s %s/%s: delays from 100ms, doubling.\n\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	var results []edges.Result
	for _, c := range edges.Cases() {
		results = append(results, edges.Probe(c, edges.Steps...))
	}
	if err := edges.WriteTable(os.Stdout, results); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println()
	if err := edges.WriteZeroTable(os.Stdout, edges.ZeroBases(), 8); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
