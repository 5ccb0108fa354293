package main

import (
	"encoding/json"
	"fmt"
)

const checkHelp = `
Check parses and validates each policy: the arguments, each file given with
-f (one policy per file; comments and newlines are allowed), or, with --key,
every string at that dotted key path in each -f file read as JSON, YAML or
TOML (by extension; .json and .yaml read alike). A "*" in the path matches
any key; lists along the way are searched element by element.

Errors are printed as FILE:LINE:COL: message, with the source line and a
caret. Exit status: 0 when every policy is valid, 1 when one is not, 2 for a
usage error.

Examples:
  schedcheck check 'backoff(100ms, 30s) & times(5)'
  schedcheck check -f policy.txt
  schedcheck check -f service.yaml --key clients.*.retry
  schedcheck check --json 'Times(0)'
`

func runCheck(c *cli, args []string) int {
	fs := c.newFlags("check", "[--json] [--key a.b.c] [POLICY | -f FILE]...", checkHelp)
	var fl files
	fs.Var(&fl, "f", "read a policy (or, with --key, a config file) from `FILE`; repeatable; - is standard input")
	key := fs.String("key", "", "treat each -f file as JSON, YAML or TOML and check every string at this dotted `path`")
	asJSON := fs.Bool("json", false, "print one JSON object per policy")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return flagExit(err)
	}
	srcs := argSources(pos)
	if *key == "" {
		fromFiles, ok := c.fileSources(fl)
		if !ok {
			return exitUsage
		}
		srcs = append(srcs, fromFiles...)
		fl = nil
	}
	for _, f := range fl {
		b, err := c.readFile(f)
		if err != nil {
			c.errorf("%v", err)
			return exitUsage
		}
		found, err := configPolicies(f, b, *key)
		if err != nil {
			c.errorf("%v", err)
			return exitInvalid
		}
		if len(found) == 0 {
			c.errorf("%s: no string at key %s", f, *key)
			return exitInvalid
		}
		srcs = append(srcs, found...)
	}
	if *key != "" && len(fl) == 0 {
		c.errorf("--key needs a config file given with -f")
		return exitUsage
	}
	if len(srcs) == 0 {
		c.errorf("check: no policy given")
		fs.Usage()
		return exitUsage
	}
	status := exitOK
	enc := json.NewEncoder(c.stdout)
	for _, p := range parseAll(srcs) {
		if p.err != nil {
			status = exitInvalid
		}
		if *asJSON {
			enc.Encode(checkJSON(p))
			continue
		}
		if p.err != nil {
			c.reportError(p)
		} else {
			fmt.Fprintf(c.stdout, "%s: ok: %v\n", p.src.label(), p.s)
		}
	}
	return status
}

// checkResult is check's JSON output for one policy.
type checkResult struct {
	Source    string `json:"source"`
	Valid     bool   `json:"valid"`
	Canonical string `json:"canonical,omitempty"`
	Error     string `json:"error,omitempty"`
	Line      int    `json:"line,omitempty"`
	Column    int    `json:"column,omitempty"`
}

func checkJSON(p parsed) checkResult {
	r := checkResult{Source: p.src.label(), Valid: p.err == nil}
	if p.err == nil {
		r.Canonical = p.s.String()
		return r
	}
	r.Error = p.err.Error()
	if pe := asParseError(p.err); pe != nil {
		r.Line, r.Column = p.src.position(pe)
		r.Error = pe.Msg + expected(pe)
	}
	return r
}
