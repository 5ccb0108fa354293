package parse_test

import (
	"encoding/json"
	"flag"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
	"go.yaml.in/yaml/v3"
)

// config is the kind of struct a program decodes its settings into.
type config struct {
	Name  string       `json:"name" yaml:"name" toml:"name"`
	Retry parse.Policy `json:"retry" yaml:"retry" toml:"retry"`
}

var wantRetry = parse.Policy{Schedule: schedule.Intersect{
	A: schedule.Backoff(100*time.Millisecond, 30*time.Second),
	B: schedule.Times{N: 5},
}}

func TestPolicyDecode(t *testing.T) {
	want := config{Name: "billing", Retry: wantRetry}
	tests := []struct {
		format string
		doc    string
		decode func(string, *config) error
	}{
		{"json", `{"name": "billing", "retry": "backoff(100ms, 30s) & times(5)"}`,
			func(s string, c *config) error { return json.Unmarshal([]byte(s), c) }},
		{"yaml", "name: billing\nretry: backoff(100ms, 30s) & times(5)\n",
			func(s string, c *config) error { return yaml.Unmarshal([]byte(s), c) }},
		{"yaml block", "name: billing\nretry: |\n  # the README's policy\n  Intersect(backoff(100, 30000),\n            times(5))\n",
			func(s string, c *config) error { return yaml.Unmarshal([]byte(s), c) }},
		{"toml", "name = \"billing\"\nretry = \"backoff(100ms, 30s) & times(5)\"\n",
			func(s string, c *config) error { _, err := toml.Decode(s, c); return err }},
		{"toml multi-line", "name = \"billing\"\nretry = '''\nbackoff(100ms, 30s)\n  & times(5)   # at most five attempts\n'''\n",
			func(s string, c *config) error { _, err := toml.Decode(s, c); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			var got config
			if err := tt.decode(tt.doc, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPolicyEncode(t *testing.T) {
	const canonical = "Intersect(Jittered(Exponential(100ms, 200%, 30s), 50%, 100%), Times(5))"
	c := config{Name: "billing", Retry: wantRetry}

	j, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"name":"billing","retry":"`+canonical+`"}`, string(j)); diff != "" {
		t.Errorf("json (-want +got):\n%s", diff)
	}
	y, err := yaml.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("name: billing\nretry: "+canonical+"\n", string(y)); diff != "" {
		t.Errorf("yaml (-want +got):\n%s", diff)
	}
	var back config
	if err := yaml.Unmarshal(y, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, back); diff != "" {
		t.Errorf("yaml round trip (-want +got):\n%s", diff)
	}
	b, err := c.Retry.AppendText([]byte("retry="))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("retry="+canonical, string(b)); diff != "" {
		t.Errorf("AppendText (-want +got):\n%s", diff)
	}
}

func TestPolicyFlag(t *testing.T) {
	var (
		p  parse.Policy
		tv = parse.Policy{Schedule: schedule.Times{N: 1}}
	)
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.Var(&p, "retry", "retry policy")
	fs.TextVar(&tv, "repeat", parse.Policy{Schedule: schedule.Times{N: 1}}, "repeat policy")
	err := fs.Parse([]string{"-retry", "backoff(100ms, 30s) & times(5)", "-repeat=Spaced(1m) upto 1h"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantRetry, p); diff != "" {
		t.Errorf("-retry (-want +got):\n%s", diff)
	}
	want := parse.Policy{Schedule: schedule.UpTo{Inner: schedule.Spaced{Every: time.Minute}, Budget: time.Hour}}
	if diff := cmp.Diff(want, tv); diff != "" {
		t.Errorf("-repeat (-want +got):\n%s", diff)
	}
	if got := fs.Lookup("repeat").DefValue; got != "Times(1)" {
		t.Errorf("-repeat default = %q, want Times(1)", got)
	}
}

// TestPolicyZero checks the zero Policy: unset, printed and marshalled as
// "", and read back from "".
func TestPolicyZero(t *testing.T) {
	var zero parse.Policy
	if got := zero.String(); got != "" {
		t.Errorf("String() = %q, want \"\"", got)
	}
	text, err := zero.MarshalText()
	if err != nil || len(text) != 0 {
		t.Errorf("MarshalText() = %q, %v; want empty, nil", text, err)
	}
	j, err := json.Marshal(config{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"name":"","retry":""}`, string(j)); diff != "" {
		t.Errorf("json (-want +got):\n%s", diff)
	}
	got := wantRetry
	if err := json.Unmarshal([]byte(`""`), &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(zero, got); diff != "" {
		t.Errorf(`"" decodes to (-want +got):\n%s`, diff)
	}
	// Blank text is not empty: it must parse, and fails.
	if err := got.UnmarshalText([]byte("  # nothing\n")); err == nil || err.Error() != "1:1: empty policy" {
		t.Errorf("blank text: err = %v, want 1:1: empty policy", err)
	}
	// A failed decode leaves the value as it was.
	keep := wantRetry
	if err := keep.UnmarshalText([]byte("Times(0)")); err == nil {
		t.Fatal("Times(0) accepted")
	}
	if diff := cmp.Diff(wantRetry, keep); diff != "" {
		t.Errorf("after a failed decode (-want +got):\n%s", diff)
	}
}
