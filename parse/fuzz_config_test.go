package parse_test

import (
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/recur-go/recur/parse"
	"go.yaml.in/yaml/v3"
)

// FuzzPolicyConfig decodes documents into a Policy field through
// encoding/json and yaml.v3 and checks that nothing panics, that LocateJSON
// and LocateYAML give positions inside the document, and that an exact JSON
// position of a parse error points at the offending token (unless the
// token's first character is written as an escape there).
func FuzzPolicyConfig(f *testing.F) {
	for _, s := range []string{
		`{"retry": "times(0)"}`,
		"{\"clients\": {\"billing\": {\"retry\": \"tmes(5)\"}}}",
		`{"retry": "times(1) \u0026\n times(0)"}`,
		`{"retry": {"times": 3}, "name": 5}`,
		`{"retry": ["x"]}`,
		"retry: times(0)\n",
		"retry: |\n  backoff(1s, 1m)\n    & tmes(5)\n",
		"retry: >\n  times(1)\n  & times(0)\n",
		"base: &b {times: 3}\nretry: *b\n",
		"clients:\n  billing:\n    retry: [1, 2]\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var c struct {
			config
			nested
		}
		if err := json.Unmarshal([]byte(doc), &c); err != nil {
			var cerr *parse.ConfigError
			if errors.As(parse.LocateJSON([]byte(doc), err), &cerr) {
				checkPlace(t, doc, cerr)
				if cerr.Err != nil && cerr.Err.Token != "" {
					want, _ := utf8.DecodeRuneInString(cerr.Err.Token)
					if got := runeAt(doc, cerr.Line, cerr.Column); got != "\\" && got != string(want) {
						t.Fatalf("LocateJSON(%q): line %d, column %d holds %q, want %q", doc, cerr.Line, cerr.Column, got, string(want))
					}
				}
			}
		}
		var y struct {
			config `yaml:",inline"`
			nested `yaml:",inline"`
		}
		if err := yaml.Unmarshal([]byte(doc), &y); err != nil {
			var cerr *parse.ConfigError
			if errors.As(err, &cerr) {
				checkPlace(t, doc, cerr)
			}
			if errors.As(parse.LocateYAML([]byte(doc), err), &cerr) {
				checkPlace(t, doc, cerr)
			}
		}
	})
}

// checkPlace fails unless cerr's line is one of doc's and its column is
// not before the line's start.
func checkPlace(t *testing.T, doc string, cerr *parse.ConfigError) {
	t.Helper()
	lines := 1
	for i := range len(doc) {
		if doc[i] == '\n' {
			lines++
		}
	}
	if cerr.Line < 1 || cerr.Line > lines || cerr.Column < 0 {
		t.Fatalf("%q: error %q at line %d, column %d; the document has %d lines", doc, cerr, cerr.Line, cerr.Column, lines)
	}
}
