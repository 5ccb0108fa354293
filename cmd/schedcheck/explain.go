package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/recur-go/recur/explain"
	"github.com/recur-go/recur/grpcconfig"
	"github.com/recur-go/recur/lint"
	"github.com/recur-go/recur/schedule"
)

const explainHelp = `
Explain says in plain words what a policy does and what its static bounds
are: the most attempts, the least and most total wait of a run whose
attempts take no time, and whether it ever stops on its own, saying each
fact once. A count or a duration at the largest value Go can hold
(9223372036854775807 attempts, 292 years) is called what it is in
practice: no limit. --json gives the bounds as numbers (null where
unbounded or saturated).

With --for hedge it reads the policy as a hedging policy (retry.Hedge):
when each extra copy of a slow call starts if no copy has answered, and
how many may be in flight.

With --from-grpc-config FILE, it explains instead each retryPolicy of a
gRPC service config (JSON, as grpc.WithDefaultServiceConfig takes it),
converted to the equivalent schedule as docs/grpc.md describes, naming the
methods it applies to.

Examples:
  schedcheck explain 'backoff(100ms, 30s) & times(5)'
  schedcheck explain 'times(3) then spaced(1m)'
  schedcheck explain --json 'fulljitter(100ms, 10s) upto 1m'
  schedcheck explain --for hedge 'spaced(50ms) & times(3)'
  schedcheck explain --from-grpc-config service_config.json
`

func runExplain(c *cli, args []string) int {
	fs := c.newFlags("explain", "[--json] [--for retry|repeat|hedge] POLICY | -f FILE | --from-grpc-config FILE", explainHelp)
	mode := fs.String("for", "retry", "what the policy is for: retry, repeat or hedge (the delays of hedged copies)")
	file := fs.String("f", "", "read the policy from `FILE`")
	asJSON := fs.Bool("json", false, "print one JSON object")
	grpcFile := fs.String("from-grpc-config", "", "explain each retryPolicy of the gRPC service config in `FILE`")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if *grpcFile != "" {
		if len(pos) > 0 || *file != "" {
			c.errorf("explain takes a policy or --from-grpc-config, not both")
			fs.Usage()
			return exitUsage
		}
		return c.explainGRPC(*grpcFile, *asJSON)
	}
	m, err := lint.ParseMode(*mode)
	if err != nil {
		c.errorf("explain: --for %s: want retry, repeat or hedge", *mode)
		return exitUsage
	}
	p, status := c.onePolicy(fs, pos, *file)
	if status != exitOK {
		return status
	}
	e := explain.Explain(p.s)
	if m == lint.Hedge {
		e = explain.Hedge(p.s)
	}
	if *asJSON {
		json.NewEncoder(c.stdout).Encode(e)
		return exitOK
	}
	fmt.Fprintf(c.stdout, "%s\n  %s\n", e.Policy, e.Explanation)
	return exitOK
}

// explainGRPC explains each method config of a gRPC service config.
func (c *cli) explainGRPC(file string, asJSON bool) int {
	gps, status := c.grpcPolicies(file)
	enc := json.NewEncoder(c.stdout)
	for _, g := range gps {
		if g.err != nil {
			status = exitInvalid
			c.reportError(g.parsed)
			continue
		}
		e := grpcExplanation{Source: g.src.name, Methods: g.methods, Notes: g.notes, Explanation: explain.Explain(g.s)}
		if asJSON {
			enc.Encode(e)
			continue
		}
		fmt.Fprintf(c.stdout, "%s:\n%s\n  %s\n", e.Source, e.Policy, e.Explanation.Explanation)
		for _, n := range e.Notes {
			fmt.Fprintf(c.stdout, "  note: %s\n", n)
		}
	}
	return status
}

// grpcExplanation is explain's JSON output for one method config.
type grpcExplanation struct {
	Source  string   `json:"source"`
	Methods []string `json:"methods"`
	Notes   []string `json:"notes,omitempty"`
	explain.Explanation
}

// grpcPolicy is one method config of a gRPC service config, as a
// schedule (or the error converting it), with the methods it applies to
// and grpcconfig's notes. Its source is named "FILE (METHODS)".
type grpcPolicy struct {
	parsed
	methods []string
	notes   []string
}

// grpcPolicies reads a gRPC service config and converts the retryPolicy
// of each method config with A6's full jitter (see package grpcconfig); a
// method config without one is Times(1). A file it cannot read is a usage
// error; an invalid config, or one without method configs, is invalid.
func (c *cli) grpcPolicies(file string) ([]grpcPolicy, int) {
	b, err := c.readFile(file)
	if err != nil {
		c.errorf("%v", err)
		return nil, exitUsage
	}
	sc, err := grpcconfig.Parse(b)
	if err != nil {
		c.errorf("%s: %v", file, err)
		return nil, exitInvalid
	}
	if len(sc.Methods) == 0 {
		c.errorf("%s: no methodConfig, so no retry policy", file)
		return nil, exitInvalid
	}
	gps := make([]grpcPolicy, 0, len(sc.Methods))
	for i, mc := range sc.Methods {
		var g grpcPolicy
		for _, n := range mc.Names {
			g.methods = append(g.methods, n.String())
		}
		names := strings.Join(g.methods, ", ")
		if names == "" {
			names = "methodConfig[" + strconv.Itoa(i) + "], which names no method"
		}
		g.src = source{name: file + " (" + names + ")"}
		if mc.RetryPolicy == nil {
			g.s, g.notes = schedule.Times{N: 1}, []string{"no retryPolicy: these methods are not retried"}
		} else {
			g.s, g.err = mc.RetryPolicy.Schedule(grpcconfig.FullJitter)
			g.notes = mc.RetryPolicy.Notes()
		}
		gps = append(gps, g)
	}
	return gps, exitOK
}
