package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/recur-go/recur/playground"
)

const serveHelp = `
Serve runs the playground, a page where a policy is typed and its meaning,
lint findings, delays, storm behaviour and gRPC retryPolicy appear as it is
typed. The page runs recur itself, compiled to WebAssembly, from files
embedded in this binary: the server only hands out files. It prints the
address it listens on and runs until Ctrl-C. docs/playground.md describes
the page; make site writes it as a static folder for any web host.

Examples:
  schedcheck serve
  schedcheck serve --addr 127.0.0.1:9000
`

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
	srv := &http.Server{
		Handler:           playground.Handler(),
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
