package configtest

// One test per library: a mapping where a policy belongs, a number, a
// string that does not parse, and what each library gives for it. Where
// a case needs a word, it has a comment.

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/parse"
)

// suchAs ends the message of a value of the wrong type.
const suchAs = `; a policy is a string such as "backoff(100ms, 30s) & times(5)"`

// tcase is a document and the error lines a user sees for it.
type tcase struct {
	doc  string
	want []string
}

// run decodes each case's document with lib's decoder and compares the
// error lines.
func run(t *testing.T, lib string, cases []tcase) {
	t.Helper()
	for _, tt := range cases {
		var c Config
		got := decoders[lib](t, tt.doc, &c)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: %q: error lines (-want +got):\n%s", lib, tt.doc, diff)
		}
	}
}

func TestGoYAMLIn(t *testing.T) {
	run(t, "go.yaml.in/yaml/v3", []tcase{
		{"clients:\n  billing:\n    retry:\n      times: 3\n",
			[]string{"yaml: line 4, column 7: found a mapping" + suchAs, "yaml: line 4, column 7, at clients.billing.retry: found a mapping" + suchAs}},
		{"name: x\nretry: 3\n",
			[]string{"yaml: line 2, column 8: found the number 3" + suchAs, "yaml: line 2, column 8, at retry: found the number 3" + suchAs}},
		{"clients:\n  billing:\n    retry: backoff(100ms, 30s) & times(0)\n",
			[]string{"yaml: line 3, column 40: Times: n 0 is below 1", "yaml: line 3, column 40, at clients.billing.retry: Times: n 0 is below 1"}},
		{"retry: |\n  backoff(100ms, 30s)\n    & tmes(5)\n",
			[]string{"yaml: line 3, column 5 after the indentation: unknown name \"tmes\"; did you mean \"Times\"?", "yaml: line 3, column 7, at retry: unknown name \"tmes\"; did you mean \"Times\"?"}},
	})
}

func TestGopkgYAMLv3(t *testing.T) {
	run(t, "gopkg.in/yaml.v3", []tcase{
		{"clients:\n  billing:\n    retry:\n      times: 3\n",
			[]string{"yaml: line 4: found a mapping" + suchAs, "yaml: line 4, column 7, at clients.billing.retry: found a mapping" + suchAs}},
		{"name: x\nretry: 3\n",
			[]string{"yaml: line 2: found the number 3" + suchAs, "yaml: line 2, column 8, at retry: found the number 3" + suchAs}},
		{"clients:\n  billing:\n    retry: backoff(100ms, 30s) & times(0)\n",
			[]string{"yaml: line 3: in the policy that starts here, at 1:29 of its text: Times: n 0 is below 1", "yaml: line 3, column 40, at clients.billing.retry: Times: n 0 is below 1"}},
		{"retry: |\n  backoff(100ms, 30s)\n    & tmes(5)\n",
			[]string{"yaml: line 1: in the policy that starts here, at 2:5 of its text: unknown name \"tmes\"; did you mean \"Times\"?", "yaml: line 3, column 7, at retry: unknown name \"tmes\"; did you mean \"Times\"?"}},
		// A mapping with the fields of go.yaml.in's yaml.Node is still a mapping.
		{"retry: {kind: 8, value: times(3)}\n",
			[]string{"yaml: line 1: found a mapping" + suchAs, "yaml: line 1, column 8, at retry: found a mapping" + suchAs}},
		// A value reached through an alias is reported at its anchor.
		{"base: &b {times: 3}\nretry: *b\n",
			[]string{"yaml: line 1: found a mapping" + suchAs, "yaml: line 1, column 7, at base: found a mapping" + suchAs}},
		{"retry: [times(3)]\n",
			[]string{"yaml: line 1: found a list" + suchAs, "yaml: line 1, column 8, at retry: found a list" + suchAs}},
		{"retry: true\n",
			[]string{"yaml: line 1: found the boolean true" + suchAs, "yaml: line 1, column 8, at retry: found the boolean true" + suchAs}},
		{"retry: 2026-12-01\n",
			[]string{"yaml: line 1: found the timestamp 2026-12-01" + suchAs, "yaml: line 1, column 8, at retry: found the timestamp 2026-12-01" + suchAs}},
	})
}

// gopkg.in/yaml.v2 calls the same UnmarshalYAML, and tells the line as
// gopkg.in/yaml.v3 does.
func TestGopkgYAMLv2(t *testing.T) {
	run(t, "gopkg.in/yaml.v2", []tcase{
		{"clients:\n  billing:\n    retry:\n      times: 3\n",
			[]string{"yaml: line 4: found a mapping" + suchAs, "yaml: line 4, column 7, at clients.billing.retry: found a mapping" + suchAs}},
		{"name: x\nretry: 3\n",
			[]string{"yaml: line 2: found the number 3" + suchAs, "yaml: line 2, column 8, at retry: found the number 3" + suchAs}},
		{"clients:\n  billing:\n    retry: backoff(100ms, 30s) & times(0)\n",
			[]string{"yaml: line 3: in the policy that starts here, at 1:29 of its text: Times: n 0 is below 1", "yaml: line 3, column 40, at clients.billing.retry: Times: n 0 is below 1"}},
	})
}

func TestSigsYAML(t *testing.T) {
	run(t, "sigs.k8s.io/yaml", []tcase{
		{"clients:\n  billing:\n    retry:\n      times: 3\n",
			[]string{"error unmarshaling JSON: while decoding JSON: json: cannot unmarshal an object (a policy is a string such as \"backoff(100ms, 30s) & times(5)\") into Go struct field Client.clients.retry of type parse.Policy", "yaml: line 4, column 7, at clients.billing.retry: found a mapping" + suchAs}},
		{"name: x\nretry: 3\n",
			[]string{"error unmarshaling JSON: while decoding JSON: json: cannot unmarshal the number 3 (a policy is a string such as \"backoff(100ms, 30s) & times(5)\") into Go struct field Config.retry of type parse.Policy", "yaml: line 2, column 8, at retry: found the number 3" + suchAs}},
		// sigs.k8s.io/yaml writes & as \u0026 in the JSON it decodes, so the
		// character count is off by 5; LocateYAML counts in the file.
		{"clients:\n  billing:\n    retry: backoff(100ms, 30s) & times(0)\n",
			[]string{"error unmarshaling JSON: while decoding JSON: json: cannot unmarshal \"backoff(100ms, 30s) & times(0)\" (character 34 of the string: Times: n 0 is below 1) into Go struct field Client.clients.retry of type parse.Policy", "yaml: line 3, column 40, at clients.billing.retry: Times: n 0 is below 1"}},
		{"retry: |\n  backoff(100ms, 30s)\n    & tmes(5)\n",
			[]string{"error unmarshaling JSON: while decoding JSON: json: cannot unmarshal \"backoff(100ms, 30s)\\n  & tmes(5)\\n\" (character 31 of the string: unknown name \"tmes\"; did you mean \"Times\"?) into Go struct field Config.retry of type parse.Policy", "yaml: line 3, column 7, at retry: unknown name \"tmes\"; did you mean \"Times\"?"}},
		{"retry: [times(3)]\n",
			[]string{"error unmarshaling JSON: while decoding JSON: json: cannot unmarshal an array (a policy is a string such as \"backoff(100ms, 30s) & times(5)\") into Go struct field Config.retry of type parse.Policy", "yaml: line 1, column 8, at retry: found a list" + suchAs}},
		{"retry: true\n",
			[]string{"error unmarshaling JSON: while decoding JSON: json: cannot unmarshal the boolean true (a policy is a string such as \"backoff(100ms, 30s) & times(5)\") into Go struct field Config.retry of type parse.Policy", "yaml: line 1, column 8, at retry: found the boolean true" + suchAs}},
	})
}

func TestJSON(t *testing.T) {
	run(t, "encoding/json", []tcase{
		{"{\"clients\": {\"billing\": {\"retry\": {\"times\": 3}}}}",
			[]string{"json: cannot unmarshal an object (a policy is a string such as \"backoff(100ms, 30s) & times(5)\") into Go struct field Client.clients.retry of type parse.Policy", "json: line 1, column 35, at clients.billing.retry: found an object" + suchAs}},
		{"{\"name\": \"x\",\n \"retry\": 3}",
			[]string{"json: cannot unmarshal the number 3 (a policy is a string such as \"backoff(100ms, 30s) & times(5)\") into Go struct field Config.retry of type parse.Policy", "json: line 2, column 11, at retry: found the number 3" + suchAs}},
		{"{\"clients\": {\n  \"billing\": {\"retry\": \"backoff(100ms, 30s) & times(0)\"}\n}}",
			[]string{"json: cannot unmarshal \"backoff(100ms, 30s) & times(0)\" (character 29 of the string: Times: n 0 is below 1) into Go struct field Client.clients.retry of type parse.Policy", "json: line 2, column 53, at clients.billing.retry: Times: n 0 is below 1"}},
	})
}

func TestBurntSushiTOML(t *testing.T) {
	run(t, "github.com/BurntSushi/toml", []tcase{
		{"[clients.billing.retry]\ntimes = 3\n",
			[]string{"toml: line 1 (last key \"clients.billing.retry\"): found a table" + suchAs}},
		{"name = \"x\"\nretry = 3\n",
			[]string{"toml: line 2 (last key \"retry\"): found the number 3" + suchAs}},
		{"[clients.billing]\nretry = \"backoff(100ms, 30s) & times(0)\"\n",
			[]string{"toml: line 2 (last key \"clients.billing.retry\"): 1:29: Times: n 0 is below 1"}},
		{"retry = {times = 3}\n",
			[]string{"toml: line 1 (last key \"retry\"): found a table" + suchAs}},
	})
}

func TestPelletierTOML(t *testing.T) {
	run(t, "github.com/pelletier/go-toml/v2", []tcase{
		// go-toml never calls Policy.UnmarshalTOML: it decodes a table
		// into Policy's own fields, without an error (parse.Check with
		// policy:"required" catches it, see TestCheckAfterDecode), and
		// hands a number to UnmarshalText as text, an error with no
		// place.
		{"[clients.billing.retry]\ntimes = 3\n",
			nil},
		{"name = \"x\"\nretry = 3\n",
			[]string{"1:1: unexpected \"3\"; expected a policy"}},
		{"[clients.billing]\nretry = \"backoff(100ms, 30s) & times(0)\"\n",
			[]string{"toml: 1:29: Times: n 0 is below 1"}},
		{"retry = {times = 3}\n",
			nil},
	})
}

func TestPelletierTOMLStrict(t *testing.T) {
	run(t, "github.com/pelletier/go-toml/v2, strict", []tcase{
		{"[clients.billing.retry]\ntimes = 3\n",
			[]string{"strict mode: fields in the document are missing in the target struct", "1| [clients.billing.retry]", "2| times = 3", " | ~~~~~ unknown field"}},
		{"name = \"x\"\nretry = 3\n",
			[]string{"1:1: unexpected \"3\"; expected a policy"}},
		{"retry = {times = 3}\n",
			[]string{"strict mode: fields in the document are missing in the target struct", "1| retry = {times = 3}", " |          ~~~~~ unknown field"}},
	})
}

func TestViper(t *testing.T) {
	run(t, "github.com/spf13/viper", []tcase{
		{"clients:\n  billing:\n    retry:\n      times: 3\n",
			[]string{"decoding failed due to the following error(s):", "", "'clients[billing].retry' found a mapping" + suchAs}},
		{"name: x\nretry: 3\n",
			[]string{"decoding failed due to the following error(s):", "", "'retry' found the number 3" + suchAs}},
		{"clients:\n  billing:\n    retry: backoff(100ms, 30s) & times(0)\n",
			[]string{"decoding failed due to the following error(s):", "", "'clients[billing].retry' 1:29: Times: n 0 is below 1"}},
		{"{\"retry\": {\"times\": 3}}",
			[]string{"decoding failed due to the following error(s):", "", "'retry' found a mapping" + suchAs}},
	})
}

func TestKoanf(t *testing.T) {
	run(t, "github.com/knadh/koanf/v2", []tcase{
		{"clients:\n  billing:\n    retry:\n      times: 3\n",
			[]string{"decoding failed due to the following error(s):", "", "'clients[billing].retry' found a mapping" + suchAs}},
		{"name: x\nretry: 3\n",
			[]string{"decoding failed due to the following error(s):", "", "'retry' found the number 3" + suchAs}},
		{"clients:\n  billing:\n    retry: backoff(100ms, 30s) & times(0)\n",
			[]string{"decoding failed due to the following error(s):", "", "'clients[billing].retry' 1:29: Times: n 0 is below 1"}},
	})
}

func TestCaarlosEnv(t *testing.T) {
	run(t, "github.com/caarlos0/env/v11", []tcase{
		{"3",
			[]string{"env: parse error on field \"Retry\" of type \"parse.Policy\": 1:1: unexpected \"3\"; expected a policy"}},
		{"{times: 3}",
			[]string{"env: parse error on field \"Retry\" of type \"parse.Policy\": 1:1: unexpected character \"{\""}},
		{"times(0)",
			[]string{"env: parse error on field \"Retry\" of type \"parse.Policy\": 1:7: Times: n 0 is below 1"}},
	})
}

func TestEnvconfig(t *testing.T) {
	run(t, "github.com/kelseyhightower/envconfig", []tcase{
		{"3",
			[]string{"envconfig.Process: assigning RETRY to Retry: converting '3' to type parse.Policy. details: 1:1: unexpected \"3\"; expected a policy"}},
		{"{times: 3}",
			[]string{"envconfig.Process: assigning RETRY to Retry: converting '{times: 3}' to type parse.Policy. details: 1:1: unexpected character \"{\""}},
		{"times(0)",
			[]string{"envconfig.Process: assigning RETRY to Retry: converting 'times(0)' to type parse.Policy. details: 1:7: Times: n 0 is below 1"}},
	})
}

func TestGetenv(t *testing.T) {
	run(t, "os.Getenv", []tcase{
		{"3",
			[]string{"RETRY: 1:1: unexpected \"3\"; expected a policy"}},
		{"{times: 3}",
			[]string{"RETRY: 1:1: unexpected character \"{\""}},
		{"times(0)",
			[]string{"RETRY: 1:7: Times: n 0 is below 1"}},
	})
}

func TestFlag(t *testing.T) {
	run(t, "flag", []tcase{
		{"3",
			[]string{"invalid value \"3\" for flag -retry: 1:1: unexpected \"3\"; expected a policy"}},
		{"{times: 3}",
			[]string{"invalid value \"{times: 3}\" for flag -retry: 1:1: unexpected character \"{\""}},
		{"times(0)",
			[]string{"invalid value \"times(0)\" for flag -retry: 1:7: Times: n 0 is below 1"}},
	})
}

// TestDecode checks that each library reads a policy that is right, and
// that the nested one gets Client's default from Check.
func TestDecode(t *testing.T) {
	yamlDoc := "retry: backoff(100ms, 30s) & times(5)\nclients:\n  billing:\n    retry: 'times(2)'\n  search: {retry: ''}\n"
	docs := map[string]string{
		"go.yaml.in/yaml/v3":                   yamlDoc,
		"gopkg.in/yaml.v3":                     yamlDoc,
		"gopkg.in/yaml.v2":                     yamlDoc,
		"sigs.k8s.io/yaml":                     yamlDoc,
		"github.com/spf13/viper":               yamlDoc,
		"github.com/knadh/koanf/v2":            yamlDoc,
		"encoding/json":                        `{"retry": "backoff(100ms, 30s) & times(5)", "clients": {"billing": {"retry": "times(2)"}, "search": {"retry": ""}}}`,
		"github.com/BurntSushi/toml":           "retry = \"backoff(100ms, 30s) & times(5)\"\n[clients.billing]\nretry = \"times(2)\"\n[clients.search]\nretry = \"\"\n",
		"github.com/pelletier/go-toml/v2":      "retry = \"backoff(100ms, 30s) & times(5)\"\n[clients.billing]\nretry = \"times(2)\"\n[clients.search]\nretry = \"\"\n",
		"github.com/caarlos0/env/v11":          "backoff(100ms, 30s) & times(5)",
		"github.com/kelseyhightower/envconfig": "backoff(100ms, 30s) & times(5)",
		"os.Getenv":                            "backoff(100ms, 30s) & times(5)",
		"flag":                                 "backoff(100ms, 30s) & times(5)",
	}
	files := Config{
		Retry: policy(t, "backoff(100ms, 30s) & times(5)"),
		Clients: map[string]Client{
			"billing": {Retry: policy(t, "times(2)")},
			"search":  {Retry: policy(t, "fulljitter(100ms, 2s) & times(3)")},
		},
	}
	for lib, doc := range docs {
		t.Run(lib, func(t *testing.T) {
			var c Config
			if got := decoders[lib](t, doc, &c); got != nil {
				t.Fatalf("error: %q", got)
			}
			if err := parse.Check(&c); err != nil {
				t.Fatal(err)
			}
			want := files
			if c.Clients == nil { // the environment and flags hold only RETRY
				want = Config{Retry: files.Retry}
			}
			if diff := cmp.Diff(want, c); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckAfterDecode checks that a misspelt key, and pelletier/go-toml's
// table left as an unset policy, fail at load with Check.
func TestCheckAfterDecode(t *testing.T) {
	docs := map[string]string{
		"go.yaml.in/yaml/v3":              "retyr: times(3)\n",
		"gopkg.in/yaml.v3":                "retyr: times(3)\n",
		"gopkg.in/yaml.v2":                "retyr: times(3)\n",
		"sigs.k8s.io/yaml":                "retyr: times(3)\n",
		"github.com/spf13/viper":          "retyr: times(3)\n",
		"github.com/knadh/koanf/v2":       "retyr: times(3)\n",
		"encoding/json":                   `{"retyr": "times(3)"}`,
		"github.com/BurntSushi/toml":      "retyr = \"times(3)\"\n",
		"github.com/pelletier/go-toml/v2": "retry = {times = 3}\n",
	}
	const want = `retry: no policy set, and one is required (is the key spelled "retry" in the file?)`
	for lib, doc := range docs {
		t.Run(lib, func(t *testing.T) {
			var c Config
			if got := decoders[lib](t, doc, &c); got != nil {
				t.Fatalf("decoding error: %q", got)
			}
			if diff := cmp.Diff(want, errorText(parse.Check(&c))); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

// policy parses s, for wanted values.
func policy(t *testing.T, s string) parse.Policy {
	t.Helper()
	var p parse.Policy
	if err := p.UnmarshalText([]byte(s)); err != nil {
		t.Fatal(err)
	}
	return p
}

// errorText returns err's message, or "<nil>".
func errorText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
