// Command site writes the playground page as a static folder for any web
// host: make site runs it. The host should serve recur.wasm with the type
// application/wasm (the page copes when it does not).
//
//	go run ./playground/site -o site
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/recur-go/recur/playground"
)

func main() {
	out := flag.String("o", "site", "write the page into `DIR`")
	flag.Parse()
	if err := playground.WriteSite(*out); err != nil {
		fmt.Fprintln(os.Stderr, "site:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote the playground to %s/\n", *out)
}
