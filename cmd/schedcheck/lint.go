package main

import (
	"encoding/json"
	"fmt"

	"github.com/recur-go/recur/lint"
)

const lintHelp = `
Lint runs the rules of docs/lint.md over each policy and prints every
finding: its severity, its rule id, what is wrong, and a fix: a whole
policy without that finding or any as severe. Exit status 1 when a policy
is invalid or a finding is at or above --fail-on: error by default, so
that warnings and info do not fail; --fail-on warning makes lint a gate
in CI.

--for says what the policies are for: retry (the default), repeat for
polling and refreshing policies (repeat.Repeat), which many runs, runs
for ever and long waits do not make wrong: the rules about retries hold
back, and busy-repeat flags a repeat that never waits; or hedge for a
hedging policy (retry.Hedge), whose delays time extra copies of a slow
call: the rules about retries hold back, and hedge-no-delay,
hedge-unbounded and hedge-too-many apply.

--from-grpc-config FILE lints each retryPolicy of a gRPC service config
as well, converted as docs/grpc.md describes, naming its methods.

Examples:
  schedcheck lint 'exponential(100ms, 200%, 30s) & times(8)'
  schedcheck lint --json 'spaced(1s)' 'fulljitter(100ms, 30s) & times(3)'
  schedcheck lint --fail-on warning -f policy.txt
  schedcheck lint --for repeat 'spaced(5s) upto 10m'
  schedcheck lint --for hedge 'spaced(50ms) & times(3)'
  schedcheck lint --from-grpc-config service_config.json
`

// lintResult is lint's JSON output for one policy.
type lintResult struct {
	Source   string         `json:"source"`
	Policy   string         `json:"policy,omitempty"`
	Error    string         `json:"error,omitempty"`
	Findings []lint.Finding `json:"findings"`
	Notes    []string       `json:"notes,omitempty"`
}

func runLint(c *cli, args []string) int {
	fs := c.newFlags("lint", "[--json] [--fail-on error|warning|info] [--for retry|repeat|hedge] [POLICY | -f FILE]...", lintHelp)
	var fl files
	fs.Var(&fl, "f", "read a policy from `FILE`; repeatable")
	asJSON := fs.Bool("json", false, "print one JSON object per policy")
	grpcFile := fs.String("from-grpc-config", "", "lint each retryPolicy of the gRPC service config in `FILE`")
	failOn := fs.String("fail-on", "error", "exit 1 on a finding of this `severity` or above: error, warning or info")
	mode := fs.String("for", "retry", "what the policies are for: retry, repeat (polling, refreshing) or hedge")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return flagExit(err)
	}
	threshold, opts, ok := c.lintFlags("lint", *failOn, *mode)
	if !ok {
		return exitUsage
	}
	fromFiles, ok := c.fileSources(fl)
	if !ok {
		return exitUsage
	}
	srcs := append(argSources(pos), fromFiles...)
	all, notes := parseAll(srcs), make([][]string, len(srcs))
	if *grpcFile != "" {
		gps, st := c.grpcPolicies(*grpcFile)
		if st != exitOK {
			return st
		}
		for _, g := range gps {
			all, notes = append(all, g.parsed), append(notes, g.notes)
		}
	}
	if len(all) == 0 {
		c.errorf("lint: no policy given")
		fs.Usage()
		return exitUsage
	}
	status := exitOK
	enc := json.NewEncoder(c.stdout)
	enc.SetEscapeHTML(false) // a fix reads a & b, not a \u0026 b
	for i, p := range all {
		res := lintResult{Source: p.src.name, Findings: []lint.Finding{}, Notes: notes[i]}
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
		if p.src.text != "" {
			fs, _ := opts.CheckSource(p.src.text) // it parsed: no error
			res.Findings = append(res.Findings, fs...)
		} else {
			res.Findings = append(res.Findings, opts.Check(p.s)...)
		}
		if w, ok := lint.Worst(res.Findings); ok && w >= threshold {
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
		for _, n := range res.Notes {
			fmt.Fprintf(c.stdout, "%s: note: %s\n", p.src.name, n)
		}
	}
	return status
}

// lintFlags reads the --fail-on and --for flags of cmd. It reports a bad
// value and returns false.
func (c *cli) lintFlags(cmd, failOn, mode string) (lint.Severity, lint.Options, bool) {
	sev, err := lint.ParseSeverity(failOn)
	if err != nil {
		c.errorf("%s: --fail-on %s: want error, warning or info", cmd, failOn)
		return 0, lint.Options{}, false
	}
	m, err := lint.ParseMode(mode)
	if err != nil {
		c.errorf("%s: --for %s: want retry, repeat or hedge", cmd, mode)
		return 0, lint.Options{}, false
	}
	return sev, lint.Options{For: m}, true
}
