package parse_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
	"go.yaml.in/yaml/v3"
)

// nested is a config whose policy sits two keys deep.
type nested struct {
	Clients struct {
		Billing client `json:"billing" yaml:"billing" toml:"billing"`
	} `json:"clients" yaml:"clients" toml:"clients"`
}

// client is the part of nested that holds the policy.
type client struct {
	Retry parse.Policy `json:"retry" yaml:"retry" toml:"retry"`
}

// runeAt returns the character at line:col (both from 1, col in
// characters) of doc, or "" when there is none.
func runeAt(doc string, line, col int) string {
	lines := strings.Split(doc, "\n")
	if line < 1 || line > len(lines) || col < 1 {
		return ""
	}
	l := lines[line-1]
	for i := 1; l != ""; i++ {
		r, size := utf8.DecodeRuneInString(l)
		if i == col {
			return string(r)
		}
		l = l[size:]
	}
	return ""
}

const suchAs = `; a policy is a string such as "backoff(100ms, 30s) & times(5)"`

func TestPolicyYAMLErrors(t *testing.T) {
	tests := []struct {
		name, doc, want string
		// at is the text the error's line and column point at in the
		// file, for a string that does not parse: the offending token.
		at string
	}{
		{"plain", "name: billing\nretry: times(0)\n",
			"yaml: line 2, column 14: Times: n 0 is below 1", "0"},
		{"plain, nested", "clients:\n  billing:\n    retry: backoff(100ms, 30s) & tmes(5)\n",
			`yaml: line 3, column 34: unknown name "tmes"; did you mean "Times"?`, "t"},
		{"single-quoted", "retry: 'backoff(1s, 1m) & times(0)'\n",
			"yaml: line 1, column 33: Times: n 0 is below 1", "0"},
		{"double-quoted", "retry: \"backoff(1s, 1m) & times(5) thne forever\"\n",
			`yaml: line 1, column 36: unknown operator "thne"; did you mean "then"?`, "t"},
		{"flow mapping", "{name: x, retry: 'exponential(1s, 50%, 1m)'}\n",
			"yaml: line 1, column 35: Exponential: factor 50% is below 100%", "5"},
		{"literal block", "name: billing\nretry: |\n  # at most five attempts\n  backoff(100ms, 30s)\n    & times(0)\n",
			"yaml: line 5, column 11 after the indentation: Times: n 0 is below 1", ""},
		{"folded block", "retry: >\n  backoff(100ms, 30s)\n  & times(0)\n",
			"yaml: line 1, column 8: in the policy that starts here, at 1:29 of its text: Times: n 0 is below 1", ""},
		{"escaped line break", "retry: \"times(1)\\n& times(0)\"\n",
			"yaml: line 1, column 8: in the policy that starts here, at 2:9 of its text: Times: n 0 is below 1", ""},
		{"byte order mark in the value", "retry: \ufefftimes(0)\n",
			"yaml: line 1, column 15: Times: n 0 is below 1", "0"},
		// Values of the wrong type, at the value.
		{"flow mapping value", "retry: {times: 3}\n", "yaml: line 1, column 8: found a mapping" + suchAs, ""},
		{"block mapping value", "retry:\n  times: 3\n", "yaml: line 2, column 3: found a mapping" + suchAs, ""},
		{"list", "retry: [times(3)]\n", "yaml: line 1, column 8: found a list" + suchAs, ""},
		{"integer", "name: x\nretry: 5\n", "yaml: line 2, column 8: found the number 5" + suchAs, ""},
		{"float", "retry: 1.5\n", "yaml: line 1, column 8: found the number 1.5" + suchAs, ""},
		{"boolean", "retry: true\n", "yaml: line 1, column 8: found the boolean true" + suchAs, ""},
		{"timestamp", "retry: 2026-12-01\n", "yaml: line 1, column 8: found the timestamp 2026-12-01" + suchAs, ""},
		{"alias to a mapping", "base: &b {times: 3}\nretry: *b\n", "yaml: line 1, column 7: found a mapping" + suchAs, ""},
		{"long number", "retry: 0." + strings.Repeat("9", 1000) + "\n",
			"yaml: line 1, column 8: found the number 0." + strings.Repeat("9", parse.MaxQuoted-2) + "…" + suchAs, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c struct {
				config `yaml:",inline"`
				nested `yaml:",inline"`
			}
			err := yaml.Unmarshal([]byte(tt.doc), &c) // both key sets at once
			if diff := cmp.Diff(tt.want, errText(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			var cerr *parse.ConfigError
			if !errors.As(err, &cerr) {
				t.Fatalf("error %T is not a *parse.ConfigError", err)
			}
			if tt.at != "" {
				if got := runeAt(tt.doc, cerr.Line, cerr.Column); got != tt.at {
					t.Errorf("line %d, column %d holds %q, want %q", cerr.Line, cerr.Column, got, tt.at)
				}
			}
			var perr *parse.Error
			if errors.As(err, &perr) != (cerr.Found == "") {
				t.Errorf("errors.As(*parse.Error) = %v with Found %q", !(cerr.Found == ""), cerr.Found)
			}
		})
	}
}

// TestPolicyYAMLInvalid checks that errors.As reaches the *schedule.Error
// of a policy that parses but is invalid.
func TestPolicyYAMLInvalid(t *testing.T) {
	var c config
	err := yaml.Unmarshal([]byte("retry: times(0)\n"), &c)
	var verr *schedule.Error
	if !errors.As(err, &verr) {
		t.Fatalf("errors.As(%v, *schedule.Error) = false", err)
	}
}

func TestPolicyYAMLNotSet(t *testing.T) {
	preset := config{Name: "billing", Retry: wantRetry}
	tests := []struct {
		name, doc string
		want      parse.Policy
	}{
		{"empty string clears", "retry: ''\n", parse.Policy{}},
		{"null leaves as it was", "retry: ~\n", wantRetry},
		{"no value leaves as it was", "retry:\n", wantRetry},
		{"absent leaves as it was", "name: billing\n", wantRetry},
		{"alias to a string", "base: &b backoff(100ms, 30s) & times(5)\nretry: *b\n", wantRetry},
		{"tagged string", "retry: !!str times(3)\n", parse.Policy{Schedule: schedule.Times{N: 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := preset
			if err := yaml.Unmarshal([]byte(tt.doc), &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Retry); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// A failed decode leaves the value as it was.
	got := preset
	if err := yaml.Unmarshal([]byte("retry: {times: 3}\n"), &got); err == nil {
		t.Fatal("a mapping was accepted")
	}
	if diff := cmp.Diff(preset, got); diff != "" {
		t.Errorf("after a failed decode (-want +got):\n%s", diff)
	}
}

// errText returns err's message, or "<nil>".
func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
