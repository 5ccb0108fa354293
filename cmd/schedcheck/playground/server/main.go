// Command server is the playground's web server: schedcheck serve builds
// it from the same source with the Go toolchain (playground.Builder's
// BuildServer) and runs it in its place. It is a program of its own so
// that net/http, which only serving needs, is not linked into schedcheck:
// that, with the dynamic linking it brings, tripled the start-up of every
// other command.
//
//	server [--addr HOST:PORT]
//
// It listens on the address (127.0.0.1:8080 by default; port 0 picks a
// free one), builds the page's WebAssembly program (playground.Builder),
// prints the address and serves the page until Ctrl-C. Its messages and
// exit statuses are schedcheck serve's.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/recur-go/recur/cmd/schedcheck/playground"
)

// Exit statuses, schedcheck's.
const (
	exitOK          = 0
	exitInvalid     = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// buildTimeout bounds the build of the playground's program: a cold build
// takes a minute or two.
const buildTimeout = 10 * time.Minute

// buildProgram finds recur's source and builds the playground's program
// from it, saying on log what it builds; a test replaces it.
var buildProgram = func(ctx context.Context, log io.Writer) (playground.Program, error) {
	b := &playground.Builder{Log: log}
	src, err := b.FindSource(ctx)
	if err != nil {
		return playground.Program{}, err
	}
	return b.Build(ctx, src)
}

func main() {
	// The first Ctrl-C stops the server; the second ends it at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	context.AfterFunc(ctx, stop)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	errorf := func(format string, args ...any) {
		fmt.Fprintf(stderr, "schedcheck: serve: "+format+"\n", args...)
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "listen on `HOST:PORT`; port 0 picks a free one")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		errorf("takes no arguments")
		return exitUsage
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		errorf("%v", err)
		return exitUsage
	}
	// The program is built before serving, so that no request waits on
	// the build past the server's timeouts; the listener holds early
	// connections until then.
	bctx, cancel := context.WithTimeout(ctx, buildTimeout)
	prog, err := buildProgram(bctx, stderr)
	cancel()
	if err != nil {
		ln.Close()
		if ctx.Err() != nil {
			return exitInterrupted
		}
		errorf("%v", err)
		return exitInvalid
	}
	srv := &http.Server{
		Handler:           handler(prog),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	fmt.Fprintf(stdout, "serving the playground on http://%s/\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		errorf("%v", err)
		return exitInvalid
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		errorf("%v", err)
	}
	<-done
	return exitOK
}
