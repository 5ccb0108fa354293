package main

import (
	"encoding/json"
	"fmt"

	"github.com/recur-go/recur/lint"
)

const lintHelp = `
Lint runs the rules of docs/lint.md over each policy and prints every
finding: its severity, its rule id, what is wrong and how to fix it. Exit
status 1 when a policy is invalid or any finding is an error.

Examples:
  schedcheck lint 'exponential(100ms, 200%, 30s) & times(8)'
  schedcheck lint --json 'spaced(1s)' 'fulljitter(100ms, 30s) & times(3)'
`

// lintResult is lint's JSON output for one policy.
type lintResult struct {
	Source   string         `json:"source"`
	Policy   string         `json:"policy,omitempty"`
	Error    string         `json:"error,omitempty"`
	Findings []lint.Finding `json:"findings"`
}

func runLint(c *cli, args []string) int {
	fs := c.newFlags("lint", "[--json] [POLICY | -f FILE]...", lintHelp)
	var fl files
	fs.Var(&fl, "f", "read a policy from `FILE`; repeatable")
	asJSON := fs.Bool("json", false, "print one JSON object per policy")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return flagExit(err)
	}
	var srcs []source
	for i, p := range pos {
		srcs = append(srcs, source{name: fmt.Sprintf("arg %d", i+1), text: p, line: 1})
	}
	for _, f := range fl {
		b, err := c.readFile(f)
		if err != nil {
			c.errorf("%v", err)
			return exitUsage
		}
		srcs = append(srcs, source{name: f, text: string(b), line: 1})
	}
	if len(srcs) == 0 {
		c.errorf("lint: no policy given")
		fs.Usage()
		return exitUsage
	}
	status := exitOK
	enc := json.NewEncoder(c.stdout)
	for _, p := range parseAll(srcs) {
		res := lintResult{Source: p.src.name, Findings: []lint.Finding{}}
		if p.err != nil {
			status = exitInvalid
			if *asJSON {
				res.Error = checkJSON(p).Error
				enc.Encode(res)
			} else {
				c.reportError(p)
			}
			continue
		}
		res.Policy = p.s.String()
		res.Findings = append(res.Findings, lint.Check(p.s)...)
		if w, ok := lint.Worst(res.Findings); ok && w == lint.Error {
			status = exitInvalid
		}
		if *asJSON {
			enc.Encode(res)
			continue
		}
		if len(res.Findings) == 0 {
			fmt.Fprintf(c.stdout, "%s: %s: no findings\n", p.src.name, res.Policy)
		}
		for _, f := range res.Findings {
			fmt.Fprintf(c.stdout, "%s: %s %s: %s\n\tfix: %s\n", p.src.name, f.Severity, f.ID, f.Message, f.Fix)
		}
	}
	return status
}
