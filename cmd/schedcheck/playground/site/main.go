// Command site writes the playground page as a static folder for any web
// host, with its WebAssembly program built from recur's source (as
// schedcheck serve builds it: see playground.Builder): make site runs it.
// The host should serve recur.wasm with the type application/wasm (the
// page copes when it does not). With -wasm-only it builds the program into
// the cache and prints where, writing no site: make wasm runs that.
//
//	go run ./playground/site -o site
//	go run ./playground/site -wasm-only
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/recur-go/recur/cmd/schedcheck/playground"
)

func main() {
	out := flag.String("o", "site", "write the page into `DIR`")
	wasmOnly := flag.Bool("wasm-only", false, "only build the program into the cache, and print where")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	err := run(ctx, *out, *wasmOnly)
	cancel()
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "site:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out string, wasmOnly bool) error {
	b := &playground.Builder{Log: os.Stderr}
	src, err := b.FindSource(ctx)
	if err != nil {
		return err
	}
	p, err := b.Build(ctx, src)
	if err != nil {
		return err
	}
	if wasmOnly {
		dir, err := b.Dir(src)
		if err != nil {
			return err
		}
		fmt.Printf("built %s (%d bytes) and %s\n", filepath.Join(dir, "recur.wasm"), len(p.Wasm), filepath.Join(dir, "wasm_exec.js"))
		return nil
	}
	if err := playground.WriteSite(out, p); err != nil {
		return err
	}
	fmt.Printf("wrote the playground to %s/\n", out)
	return nil
}
