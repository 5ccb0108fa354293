package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/recur-go/recur/convert"
)

const convertHelp = `
Convert reads a retry configuration another project uses and prints the
recur policy that makes the same attempts at the same delays, counting as
that project counts and with its defaults; or, with --to, writes a policy
in another project's format. The formats:

  recur         a policy in recur's language
  temporal      Temporal's RetryPolicy, protobuf JSON
  resilience4j  Spring Boot YAML, resilience4j.retry instances and configs
  envoy         Envoy's route retry_policy, JSON or YAML
  polly         Polly v8 RetryStrategyOptions, appsettings.json form
  grpc          a gRPC service config, or one retryPolicy of it

FILE is read whole (at most 1 MiB); "-" or no FILE reads standard input.
Each policy of the document is printed on its own line, after a line
"# NAME" when the format holds several. On standard error, "note:" lines
say where the schedule differs from the source and by how much (a wait the
peer rounds to whole milliseconds, a jitter it draws in them), and
"not a schedule:" lines give the fields that say which failures to retry
or how long an attempt may take, with where recur takes each. A field
recur cannot say, or a policy the target format cannot say exactly, is an
error (exit status 1). docs/convert.md has each format's mapping.

Examples:
  schedcheck convert --from temporal retry_policy.json
  schedcheck convert --from resilience4j application.yml
  schedcheck convert --from envoy --to recur route.yaml
  schedcheck convert --from recur --to polly - <<< 'linear(1s) & times(4)'
  schedcheck convert --json --from grpc service_config.json
`

// convertResult is convert's JSON output for one policy.
type convertResult struct {
	Name     string          `json:"name,omitempty"`
	Policy   string          `json:"policy"`
	Output   string          `json:"output,omitempty"` // the written document
	Error    string          `json:"error,omitempty"`
	Notes    []string        `json:"notes,omitempty"`
	Retained []convert.Field `json:"retained,omitempty"`
}

func runConvert(c *cli, args []string) int {
	fs := c.newFlags("convert", "--from FORMAT [--to FORMAT] [--json] [FILE | -]", convertHelp)
	from := fs.String("from", "", "the `FORMAT` of the input: "+formatNames())
	to := fs.String("to", "recur", "the `FORMAT` to write")
	asJSON := fs.Bool("json", false, "print one JSON object per policy")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return flagExit(err)
	}
	switch {
	case *from == "":
		c.errorf("convert: --from is required: one of %s", formatNames())
		fs.Usage()
		return exitUsage
	case !knownFormat(*from):
		c.errorf("convert: unknown format %q for --from; want one of %s", *from, formatNames())
		return exitUsage
	case !knownFormat(*to):
		c.errorf("convert: unknown format %q for --to; want one of %s", *to, formatNames())
		return exitUsage
	case len(pos) > 1:
		c.errorf("convert: takes one FILE; got %d", len(pos))
		fs.Usage()
		return exitUsage
	}
	file := "-"
	if len(pos) == 1 {
		file = pos[0]
	}
	data, err := c.readFile(file)
	if err != nil {
		c.errorf("%v", err)
		return exitUsage
	}
	name := file
	if name == "-" {
		name = "standard input"
	}
	results, err := convert.Read(convert.Format(*from), data)
	if err != nil {
		c.errorf("%s: %v", name, strings.TrimPrefix(err.Error(), "convert: "))
		return exitInvalid
	}
	status := exitOK
	enc := json.NewEncoder(c.stdout)
	for _, r := range results {
		out, werr := convert.Write(convert.Format(*to), r.Schedule)
		if *asJSON {
			jr := convertResult{Name: r.Name, Policy: r.Schedule.String(), Notes: r.Notes, Retained: r.Retained}
			if werr != nil {
				jr.Error = strings.TrimPrefix(werr.Error(), "convert: ")
			} else {
				jr.Output = string(out)
			}
			enc.Encode(jr)
		} else {
			if len(results) > 1 || r.Name != "" {
				fmt.Fprintf(c.stdout, "# %s\n", r.Name)
			}
			if werr == nil {
				text := string(out)
				if !strings.HasSuffix(text, "\n") {
					text += "\n"
				}
				fmt.Fprint(c.stdout, text)
			}
			label := name
			if r.Name != "" {
				label += " (" + r.Name + ")"
			}
			for _, n := range r.Notes {
				fmt.Fprintf(c.stderr, "%s: note: %s\n", label, n)
			}
			for _, f := range r.Retained {
				fmt.Fprintf(c.stderr, "%s: not a schedule: %s = %s: %s\n", label, f.Path, f.Value, f.Use)
			}
			if werr != nil {
				c.errorf("%s: %s", label, strings.TrimPrefix(werr.Error(), "convert: "))
			}
		}
		if werr != nil {
			status = exitInvalid
		}
	}
	return status
}

func formatNames() string {
	names := make([]string, len(convert.Formats))
	for i, f := range convert.Formats {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

func knownFormat(s string) bool {
	for _, f := range convert.Formats {
		if string(f) == s {
			return true
		}
	}
	return false
}
