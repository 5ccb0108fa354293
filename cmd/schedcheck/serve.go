package main

import (
	"github.com/recur-go/recur/cmd/schedcheck/playground"
)

const serveHelp = `
Serve runs the playground, a page where a policy is typed and its meaning,
lint findings, delays, storm behaviour and gRPC retryPolicy appear as it is
typed. The page runs recur itself, compiled to WebAssembly: the server only
hands out files. The server and the page's program are built on first use
with the Go toolchain, from the recur source this binary was built from
(or, for an installed release, that release from the module cache, or the
clone of recur in the working directory), into the user cache folder
(recur/playground), and the server then runs in this command's place. The
first build takes a minute or two; later ones take a moment. It prints the
address it listens on and runs until Ctrl-C. docs/playground.md describes
the page; make site writes it as a static folder for any web host.

Examples:
  schedcheck serve
  schedcheck serve --addr 127.0.0.1:9000
`

// startServer builds the playground's server (playground/server) from
// recur's source and runs it with args, in place of this process where
// the system allows it; it returns only on failure, or elsewhere when the
// server ends. A test replaces it.
var startServer = func(c *cli, args []string) int {
	b := &playground.Builder{Log: c.stderr}
	src, err := b.FindSource(c.ctx)
	if err == nil {
		var bin string
		if bin, err = b.BuildServer(c.ctx, src); err == nil {
			return c.runInPlace(bin, args)
		}
	}
	if c.ctx.Err() != nil {
		return exitInterrupted
	}
	c.errorf("serve: %v", err)
	return exitInvalid
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
	return startServer(c, []string{"--addr", *addr})
}
