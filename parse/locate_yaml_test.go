package parse_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/parse"
	"go.yaml.in/yaml/v3"
)

func TestLocateYAML(t *testing.T) {
	type layer struct {
		Name  string       `yaml:"name"`
		Retry parse.Policy `yaml:"retry"`
	}
	type plan struct {
		Layers []layer `yaml:"layers"`
	}
	tests := []struct {
		name, doc string
		into      any
		want      string
		at        string // what the line and column point at
	}{
		{"nested", "clients:\n  billing:\n    retry: tmes(5)\n", &nested{},
			`yaml: line 3, column 12, at clients.billing.retry: unknown name "tmes"; did you mean "Times"?`, "t"},
		{"literal block", "clients:\n  billing:\n    retry: |\n\n      backoff(100ms, 30s)\n        & tmes(5)\n", &nested{},
			`yaml: line 6, column 11, at clients.billing.retry: unknown name "tmes"; did you mean "Times"?`, "t"},
		{"list", "layers:\n  - name: edge\n    retry: times(3)\n  - name: db\n    retry: {times: 3}\n", &plan{},
			"yaml: line 5, column 12, at layers.1.retry: found a mapping" + suchAs, "{"},
		{"alias", "base: &b {times: 3}\nretry: *b\n", &config{},
			"yaml: line 1, column 7, at base: found a mapping" + suchAs, "&"},
		{"folded", "retry: >\n  times(1)\n  & times(0)\n", &config{},
			"yaml: line 1, column 8, at retry: in the policy that starts here, at 1:18 of its text: Times: n 0 is below 1", ">"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := yaml.Unmarshal([]byte(tt.doc), tt.into)
			if err == nil {
				t.Fatal("yaml.Unmarshal succeeded")
			}
			located := parse.LocateYAML([]byte(tt.doc), err)
			if diff := cmp.Diff(tt.want, errText(located)); diff != "" {
				t.Fatalf("LocateYAML of %q (-want +got):\n%s", err, diff)
			}
			var cerr *parse.ConfigError
			if !errors.As(located, &cerr) {
				t.Fatalf("%T is not a *parse.ConfigError", located)
			}
			if got := runeAt(tt.doc, cerr.Line, cerr.Column); got != tt.at {
				t.Errorf("line %d, column %d holds %q, want %q", cerr.Line, cerr.Column, got, tt.at)
			}
		})
	}
}

// TestLocateYAMLStream finds a value in the second document of a stream,
// and leaves other errors as they were.
func TestLocateYAMLStream(t *testing.T) {
	doc := "retry: times(1)\n---\nretry: times(0)\n"
	dec := yaml.NewDecoder(strings.NewReader(doc))
	var c config
	if err := dec.Decode(&c); err != nil {
		t.Fatal(err)
	}
	err := dec.Decode(&c)
	if diff := cmp.Diff("yaml: line 3, column 14, at retry: Times: n 0 is below 1", errText(parse.LocateYAML([]byte(doc), err))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	other := yaml.Unmarshal([]byte("retry: [\n"), &c)
	if got := parse.LocateYAML([]byte("retry: [\n"), other); got != other {
		t.Errorf("LocateYAML(%v) = %v, want it unchanged", other, got)
	}
	plain := fmt.Errorf("wrapped: %w", &parse.ConfigError{Line: 1, Column: 1, Found: "a list"})
	if got := parse.LocateYAML([]byte("x: 1\n"), plain); got != plain {
		t.Errorf("LocateYAML(%v) = %v, want it unchanged", plain, got)
	}
}
