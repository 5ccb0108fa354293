package main

import (
	"fmt"

	"github.com/recur-go/recur/lint"
	"github.com/recur-go/recur/schedule"
)

const fmtHelp = `
Fmt prints each policy in canonical form: the constructor form that
String() gives and that parses back to an equal value. --simplify rewrites
it first into an equivalent smaller policy (flattened, identities dropped,
operands ordered); --infix prints the operator form people write
(backoff(100ms, 30s) & times(5), durations as 1m rather than 1m0s), which
also parses back to an equal value.

Examples:
  schedcheck fmt 'backoff(100, 30000) & times(5)'
  schedcheck fmt --simplify 'times(3) | times(5) | (forever & spaced(1s))'
  schedcheck fmt --infix -f policy.txt
`

func runFmt(c *cli, args []string) int {
	fs := c.newFlags("fmt", "[--simplify] [--infix] [POLICY | -f FILE]...", fmtHelp)
	var fl files
	fs.Var(&fl, "f", "read a policy from `FILE`; repeatable")
	simplify := fs.Bool("simplify", false, "simplify before printing")
	infix := fs.Bool("infix", false, "print the infix form")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return flagExit(err)
	}
	fromFiles, ok := c.fileSources(fl)
	if !ok {
		return exitUsage
	}
	srcs := append(argSources(pos), fromFiles...)
	if len(srcs) == 0 {
		c.errorf("fmt: no policy given")
		fs.Usage()
		return exitUsage
	}
	status := exitOK
	for _, p := range parseAll(srcs) {
		if p.err != nil {
			c.reportError(p)
			status = exitInvalid
			continue
		}
		s := p.s
		if *simplify {
			s = schedule.Simplify(s)
		}
		if *infix {
			fmt.Fprintln(c.stdout, infixForm(s))
		} else {
			fmt.Fprintln(c.stdout, s)
		}
	}
	return status
}

// infixForm is the infix form with durations as people write them (1m,
// not 1m0s): lint.Format, the form of lint's fixes, which parses back to
// an equal value.
func infixForm(s schedule.Schedule) string { return lint.Format(s) }
