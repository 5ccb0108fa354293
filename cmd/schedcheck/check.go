package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/recur-go/recur/lint"
)

const checkHelp = `
Check parses and validates each policy: the arguments, each file given with
-f (one policy per file; comments and newlines are allowed), or, with --key,
every string at that dotted key path in each -f file read as JSON, YAML or
TOML (by extension; .json and .yaml read alike). A "*" in the path matches
any key; lists along the way are searched element by element, and YAML
merge keys (<<: *anchor) are followed. A value at the path that is not a
string (a number, a mapping, a table) is an error at its line and column. A
file given without --key that looks like a config file gets a hint to pass
--key.

Input is read up to 1 MiB per file. A named pipe that nothing writes to is
an error at once, and one that sends nothing for 5s is given up. In config
files, lists and tables may nest 100 deep (JSON, TOML) and YAML aliases may
not refer to themselves or stand for more than 100,000 nodes.

Errors are printed as FILE:LINE:COL: message, with the source line and a
caret; an error in a config file names no text of the file but the policy's.
Results come in the order of the arguments and of the files.

A valid policy is also linted for the rules whose findings are errors
(docs/lint.md): the ones that are almost certainly mistakes, such as a cap
below the base (backoff(2s, 100ms): every wait is 100ms) or a bare number
where a duration belongs (spaced(1) is one millisecond), and, for a retry
policy, one that never stops. Each is printed with its fix. --for repeat
checks polling and refreshing policies, which may run for ever; --for
hedge checks hedging policies (copies at once, no bound on copies).

Exit status: 0 when every policy is valid and has no error finding, 1
when one is invalid or has one, 2 for a usage error.

Examples:
  schedcheck check 'backoff(100ms, 30s) & times(5)'
  schedcheck check -f policy.txt
  schedcheck check -f service.yaml --key clients.*.retry
  schedcheck check --json 'Times(0)'
  schedcheck check --for repeat -f poll.txt
`

func runCheck(c *cli, args []string) int {
	fs := c.newFlags("check", "[--json] [--key a.b.c] [--for retry|repeat|hedge] [POLICY | -f FILE]...", checkHelp)
	var fl files
	fs.Var(&fl, "f", "read a policy (or, with --key, a config file) from `FILE`; repeatable; - is standard input")
	key := fs.String("key", "", "treat each -f file as JSON, YAML or TOML and check every string at this dotted `path`")
	asJSON := fs.Bool("json", false, "print one JSON object per policy")
	mode := fs.String("for", "retry", "what the policies are for: retry, repeat (polling, refreshing) or hedge")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return flagExit(err)
	}
	_, opts, ok := c.lintFlags("check", "error", *mode)
	if !ok {
		return exitUsage
	}
	var items []checkItem
	for _, src := range argSources(pos) {
		items = append(items, checkItem{src: src})
	}
	if *key == "" {
		fromFiles, ok := c.fileSources(fl)
		if !ok {
			return exitUsage
		}
		for _, src := range fromFiles {
			items = append(items, checkItem{src: src})
		}
		fl = nil
	}
	// A config file may hold thousands of policies: buffer the output.
	out, errs := bufio.NewWriter(c.stdout), bufio.NewWriter(c.stderr)
	defer out.Flush()
	defer errs.Flush()
	c = &cli{stdin: c.stdin, stdout: out, stderr: errs}
	status := exitOK
	enc := json.NewEncoder(c.stdout)
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
		if len(found.srcs) == 0 && len(found.bad) == 0 {
			c.errorf("%s: no string at key %s", f, *key)
			return exitInvalid
		}
		items = append(items, inFileOrder(found)...)
	}
	if *key != "" && len(fl) == 0 {
		c.errorf("--key needs a config file given with -f")
		return exitUsage
	}
	if len(items) == 0 {
		c.errorf("check: no policy given")
		errs.Flush() // before the usage, which fs prints unbuffered
		fs.Usage()
		return exitUsage
	}
	var srcs []source
	for _, it := range items {
		if it.bad == nil {
			srcs = append(srcs, it.src)
		}
	}
	checked := checkCached(opts, srcs)
	for _, it := range items {
		if it.bad != nil {
			status = exitInvalid
			if *asJSON {
				m := it.bad.(misfit)
				enc.Encode(checkResult{Source: m.name + ":" + m.key, Error: m.msg(), Line: m.line, Column: m.col})
			} else {
				fmt.Fprintln(c.stderr, it.bad)
			}
			continue
		}
		p := checked[0]
		checked = checked[1:]
		if p.err != nil || len(p.findings) > 0 {
			status = exitInvalid
		}
		if *asJSON {
			r := checkJSON(p.parsed)
			r.Findings = p.findings
			enc.Encode(r)
			continue
		}
		switch {
		case p.err != nil:
			c.reportError(p.parsed)
			if h := configHint(p.src); h != "" {
				fmt.Fprintf(c.stderr, "\thint: %s\n", h)
			}
		case len(p.findings) > 0:
			for _, f := range p.findings {
				fmt.Fprintf(c.stderr, "%s: %s %s: %s\n\tfix: %s\n", p.src.label(), f.Severity, f.ID, f.Message, f.Fix)
			}
		default:
			fmt.Fprintf(c.stdout, "%s: ok: %v\n", p.src.label(), p.s)
		}
	}
	return status
}

// checkItem is one thing check reports on: a policy, or a value at the
// key path of a config file that is not a policy.
type checkItem struct {
	src source
	bad error // a misfit, or nil
}

// inFileOrder returns the policies and misfits of a config file in the
// order the walk of the file found them, which is the order of their keys.
func inFileOrder(found configResult) []checkItem {
	var out []checkItem
	srcs, bad := found.srcs, found.bad
	for _, isMisfit := range found.misfitAt {
		if isMisfit {
			out = append(out, checkItem{bad: bad[0]})
			bad = bad[1:]
		} else {
			out = append(out, checkItem{src: srcs[0]})
			srcs = srcs[1:]
		}
	}
	return out
}

// checkedPolicy is a parsed policy and its error-severity lint findings.
type checkedPolicy struct {
	parsed
	findings []lint.Finding
}

// checkCached parses each source and lints it for the rules that are
// errors (lint.Options.StrictSource), each distinct text once.
func checkCached(opts lint.Options, srcs []source) []checkedPolicy {
	findings := map[string][]lint.Finding{}
	var out []checkedPolicy
	for _, p := range parseCached(srcs) {
		cp := checkedPolicy{parsed: p}
		if p.err == nil {
			fs, ok := findings[p.src.text]
			if !ok {
				var se *lint.StrictError
				if errors.As(opts.StrictSource(p.src.text), &se) {
					fs = se.Findings
				}
				findings[p.src.text] = fs
			}
			cp.findings = fs
		}
		out = append(out, cp)
	}
	return out
}

// parseCached is parseAll parsing each distinct text once: YAML aliases
// can repeat one long policy at many keys.
func parseCached(srcs []source) []parsed {
	seen := map[string]parsed{}
	out := make([]parsed, len(srcs))
	for i, src := range srcs {
		p, ok := seen[src.text]
		if !ok {
			p = parseAll([]source{src})[0]
			seen[src.text] = p
		}
		p.src = src
		out[i] = p
	}
	return out
}

// configHint returns a hint for a file of policies that did not parse and
// looks like a config file, or "".
func configHint(src source) string {
	if src.key != "" || src.file != nil || strings.HasPrefix(src.name, "arg ") {
		return ""
	}
	kind := ""
	switch strings.ToLower(filepath.Ext(src.name)) {
	case ".yaml", ".yml":
		kind = "YAML"
	case ".json":
		kind = "JSON"
	case ".toml":
		kind = "TOML"
	default:
		kind = sniffConfig(src.text)
	}
	if kind == "" {
		return ""
	}
	return "this looks like a " + kind + " config file; pass --key PATH to pick the policies in it (for example --key clients.*.retry)"
}

// sniffConfig guesses from its first line that is not blank or a comment
// whether text is a YAML, TOML or JSON config file, which no policy's
// first line looks like.
func sniffConfig(text string) string {
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || line == "---" {
			continue
		}
		switch {
		case strings.HasPrefix(line, "{"):
			return "JSON"
		case strings.HasPrefix(line, "["):
			return "TOML"
		case yamlKey().MatchString(line):
			return "YAML"
		case tomlKey().MatchString(line):
			return "TOML"
		}
		return ""
	}
	return ""
}

// yamlKey and tomlKey match the start of a line "key: …" and "key = …".
var (
	yamlKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][\w.-]*:(\s|$)`) })
	tomlKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][\w.-]*\s*=`) })
)

// checkResult is check's JSON output for one policy.
type checkResult struct {
	Source    string `json:"source"`
	Valid     bool   `json:"valid"`
	Canonical string `json:"canonical,omitempty"`
	Error     string `json:"error,omitempty"`
	Line      int    `json:"line,omitempty"`
	Column    int    `json:"column,omitempty"`
	// Findings are the error-severity lint findings of a valid policy,
	// which fail check as an invalid policy does.
	Findings []lint.Finding `json:"findings,omitempty"`
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
