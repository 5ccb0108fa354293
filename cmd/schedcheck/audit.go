package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/recur-go/recur/audit"
)

const auditHelp = `
Audit checks a resilience plan: the layers a request passes through, edge
first, each with its retry policy, timeouts, circuit breaker, retry budget
and operations. It prints the verdict, a score from 0 to 100, the findings
(most severe first) and what to do about them; docs/audit.md explains each
rule. The plan is YAML or JSON, as docs/audit-plan.schema.json describes;
- reads standard input. A policy that does not parse is reported at its
line and column in the plan.

A misspelt key is an error that names the layer and suggests the known key
nearest to it. A plan is read up to 1 MiB, with at most 64 layers; YAML
aliases may not refer to themselves or expand past a limit.

Exit status: 0 when the plan passes (no error-level finding), 1 when it does
not pass or does not parse, 2 for a usage error or a plan with no layers.

Examples:
  schedcheck audit examples/audit/pass.yaml
  schedcheck audit --json examples/audit/fail.yaml
  schedcheck audit - < plan.json
`

func runAudit(c *cli, args []string) int {
	fs := c.newFlags("audit", "[--json] PLAN", auditHelp)
	asJSON := fs.Bool("json", false, `print the report as one JSON object: {"pass", "score", "findings", "recommendations"}`)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) != 1 {
		c.errorf("audit takes one plan file; got %d", len(pos))
		fs.Usage()
		return exitUsage
	}
	name := pos[0]
	data, err := c.readFile(name)
	if err != nil {
		c.errorf("%v", err)
		return exitUsage
	}
	p, err := audit.Decode(data)
	if err != nil {
		var pe *audit.PolicyError
		var ke *audit.KeyError
		switch {
		case errors.As(err, &pe):
			c.reportError(parsed{src: source{name: name, key: pe.Path, text: pe.Text, line: pe.Line, file: newFileText(data)}, err: pe.Err})
		case errors.As(err, &ke):
			fmt.Fprintf(c.stderr, "%s:%v\n", name, ke)
		default:
			fmt.Fprintf(c.stderr, "%s: %v\n", name, err)
		}
		if errors.Is(err, audit.ErrNoLayers) {
			return exitUsage
		}
		return exitInvalid
	}
	r := audit.Run(p)
	if *asJSON {
		json.NewEncoder(c.stdout).Encode(r)
	} else {
		fmt.Fprint(c.stdout, r)
	}
	if !r.Pass {
		return exitInvalid
	}
	return exitOK
}
