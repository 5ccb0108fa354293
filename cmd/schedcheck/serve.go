package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/recur-go/recur/cmd/schedcheck/playground"
)

const serveHelp = `
Serve runs the playground, a page where a policy is typed and its meaning,
lint findings, delays, storm behaviour and gRPC retryPolicy appear as it is
typed. The page runs recur itself, compiled to WebAssembly: the server only
hands out files. The page's files are embedded in this binary; its
program is built on first use with the Go toolchain, from the recur source
this binary was built from (or, for an installed release, that release
from the module cache, or the clone of recur in the working directory),
into the user cache folder (recur/playground). The first build takes a
minute or two; later ones take a moment. It prints the address it listens
on and runs until Ctrl-C. docs/playground.md describes the page; make site
writes it as a static folder for any web host.

Examples:
  schedcheck serve
  schedcheck serve --addr 127.0.0.1:9000
`

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

func runServe(c *cli, args []string) int {
	fs := c.newFlags("serve", "[--addr HOST:PORT]", serveHelp)
	addr := fs.String("addr", "127.0.0.1:8080", "listen on `HOST:PORT`; port 0 picks a free one")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) > 0 {
		c.errorf("serve takes no arguments")
		fs.Usage()
		return exitUsage
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		c.errorf("serve: %v", err)
		return exitUsage
	}
	// The program is built before serving, so that no request waits on
	// the build past the server's timeouts; the listener holds early
	// connections until then.
	bctx, cancel := context.WithTimeout(c.ctx, buildTimeout)
	prog, err := buildProgram(bctx, c.stderr)
	cancel()
	if err != nil {
		ln.Close()
		if c.ctx.Err() != nil {
			return exitInterrupted
		}
		c.errorf("serve: %v", err)
		return exitInvalid
	}
	srv := &http.Server{
		Handler:           playground.Handler(prog),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	fmt.Fprintf(c.stdout, "serving the playground on http://%s/\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		c.errorf("serve: %v", err)
		return exitInvalid
	case <-c.ctx.Done():
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		c.errorf("serve: %v", err)
	}
	<-done
	return exitOK
}
