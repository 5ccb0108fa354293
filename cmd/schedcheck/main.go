// Command schedcheck checks, formats, explains, lints, simulates and plots
// retry policies written in recur's policy language.
//
// Usage:
//
//	schedcheck <command> [flags] [POLICY...]
//
// The commands are:
//
//	check     parse and validate policies, from arguments, files or config files
//	fmt       print policies in canonical form, optionally simplified or infix
//	explain   say in plain words what a policy does, from its static bounds
//	lint      flag policies that are legal but unwise
//	simulate  run a policy on a virtual clock and print its timeline
//	plot      chart the delay distribution of each retry over many seeds
//	storm     simulate clients contending for one resource, as in Brooker's post
//	audit     check a whole resilience plan: layers, policies, breakers, budgets
//	serve     serve the browser playground, which runs recur in WebAssembly
//
// Every command takes --json for scripts. Exit status: 0 for success, 1 when
// a policy is invalid or a lint finding is an error, 2 for a usage error,
// 130 when Ctrl-C interrupted a simulation (what it computed is printed,
// marked partial).
// Run "schedcheck <command> --help" for a command's flags and examples;
// docs/schedcheck.md is the manual.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/recur-go/recur/cmd/schedcheck/internal/suggest"
)

// maxInput is the most bytes schedcheck reads from one file or from
// standard input: a policy file, a config file (--key) or an audit plan.
// A policy is at most parse.MaxLen (64 KiB); a config file may hold many,
// and 1 MiB is also the most a Kubernetes ConfigMap may hold.
// docs/limits.md lists it with the other limits.
const maxInput = 1 << 20

func main() {
	ctx, stop := catchInterrupt(interruptDelay)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// interruptDelay is how long main leaves Ctrl-C to its default, ending
// the program, before catching it. The quick commands are done by then.
const interruptDelay = 100 * time.Millisecond

// catchInterrupt returns a context that the first Ctrl-C cancels, so that
// the simulations print what they have; the second ends the program at
// once. It catches the signal only once delay has passed: signal.Notify
// starts a thread, which costs a command that is done in a few
// milliseconds a fifth of its start-up, and a Ctrl-C before then ends the
// program as it would anyway. stop releases the context.
func catchInterrupt(delay time.Duration) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	t := time.AfterFunc(delay, func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt)
		go func() {
			select {
			case <-sig:
			case <-ctx.Done():
			}
			signal.Stop(sig)
			cancel()
		}()
	})
	return ctx, func() { t.Stop(); cancel() }
}

// Exit statuses.
const (
	exitOK      = 0
	exitInvalid = 1
	exitUsage   = 2
	// exitInterrupted is the shell's status for a program ended by SIGINT.
	exitInterrupted = 130
)

// command is one subcommand.
type command struct {
	name, summary string
	run           func(c *cli, args []string) int
}

func commands() []command {
	return []command{
		{"check", "parse and validate policies", runCheck},
		{"fmt", "print policies in canonical form", runFmt},
		{"explain", "say in plain words what a policy does", runExplain},
		{"lint", "flag policies that are legal but unwise", runLint},
		{"simulate", "run a policy on a virtual clock", runSimulate},
		{"plot", "chart the delay distribution of each retry", runPlot},
		{"storm", "simulate clients contending for one resource", runStorm},
		{"audit", "check a resilience plan against the audit rules", runAudit},
		{"convert", "convert Temporal, Resilience4j, Envoy, Polly, gRPC retry configs", runConvert},
		{"serve", "serve the playground page on 127.0.0.1", runServe},
	}
}

// cli carries the context and the streams a command reads and writes.
type cli struct {
	ctx            context.Context // done on Ctrl-C
	stdin          io.Reader
	stdout, stderr io.Writer
	progress       io.Writer     // standard error when it is a terminal, else nil: see meter
	pace           time.Duration // the wait before the first progress line and between updates
}

func (c *cli) errorf(format string, args ...any) {
	fmt.Fprintf(c.stderr, "schedcheck: "+format+"\n", args...)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, progress: terminal(stderr), pace: 200 * time.Millisecond}
	if len(args) == 0 {
		c.usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		c.usage(stdout)
		return exitOK
	}
	for _, cmd := range commands() {
		if cmd.name == args[0] {
			return cmd.run(c, args[1:])
		}
	}
	var names []string
	for _, cmd := range commands() {
		names = append(names, cmd.name)
	}
	if near := suggest.Closest(args[0], names); near != "" {
		c.errorf("unknown command %q; did you mean %q?", args[0], near)
	} else {
		c.errorf("unknown command %q", args[0])
	}
	c.usage(stderr)
	return exitUsage
}

func (c *cli) usage(w io.Writer) {
	fmt.Fprint(w, "Usage: schedcheck <command> [flags] [POLICY...]\n\nCommands:\n")
	for _, cmd := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", cmd.name, cmd.summary)
	}
	fmt.Fprint(w, "\nRun 'schedcheck <command> --help' for a command's flags and examples.\n")
}

// readFile reads a file, or standard input for "-", refusing more than
// maxInput bytes. It reads through a limited reader, so /dev/zero or an
// endless pipe costs maxInput bytes, not all of memory.
func (c *cli) readFile(name string) ([]byte, error) {
	var b []byte
	var err error
	if name == "-" {
		b, err = io.ReadAll(io.LimitReader(c.stdin, maxInput+1))
	} else {
		f, regular, oerr := openInput(name) // never blocks on a named pipe
		if oerr != nil {
			return nil, oerr
		}
		defer f.Close()
		b, err = readInput(name, f, regular, maxInput)
	}
	if err != nil {
		return nil, err
	}
	if len(b) > maxInput {
		return nil, fmt.Errorf("%s: input is longer than the limit of %d bytes (%d MiB)", name, maxInput, maxInput>>20)
	}
	return b, nil
}
