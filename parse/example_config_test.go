package parse_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/recur-go/recur/parse"
	"go.yaml.in/yaml/v3"
)

// A Policy read from YAML reports a mistake at its line and column in the
// file, and a value that is not a string as an error.
func ExamplePolicy_UnmarshalYAML() {
	type Config struct {
		Retry parse.Policy `yaml:"retry"`
	}
	docs := []string{
		"retry: backoff(100ms, 30s) & times(0)\n",
		"retry: |\n  backoff(100ms, 30s)\n    & tmes(5)\n",
		"retry:\n  times: 5\n",
	}
	for _, doc := range docs {
		var c Config
		fmt.Println(yaml.Unmarshal([]byte(doc), &c))
	}
	// Output:
	// yaml: line 1, column 36: Times: n 0 is below 1
	// yaml: line 3, column 5 after the indentation: unknown name "tmes"; did you mean "Times"?
	// yaml: line 2, column 3: found a mapping; a policy is a string such as "backoff(100ms, 30s) & times(5)"
}

// LocateJSON places a Policy's error from encoding/json in the document:
// line, column and key path.
func ExampleLocateJSON() {
	type Client struct {
		Retry parse.Policy `json:"retry"`
	}
	type Config struct {
		Clients map[string]Client `json:"clients"`
	}
	doc := []byte(`{
  "clients": {
    "billing": {"retry": "backoff(100ms, 30s) & times(0)"}
  }
}`)
	var c Config
	err := json.Unmarshal(doc, &c)
	fmt.Println(err)
	err = parse.LocateJSON(doc, err)
	fmt.Println(err)
	var perr *parse.Error
	fmt.Println(errors.As(err, &perr), perr.Token)
	// Output:
	// json: cannot unmarshal "backoff(100ms, 30s) & times(0)" (character 29 of the string: Times: n 0 is below 1) into Go struct field Client.clients.retry of type parse.Policy
	// json: line 3, column 55, at clients.billing.retry: Times: n 0 is below 1
	// true 0
}

// LocateYAML adds the key path, which yaml.v3 does not tell a Policy, and
// the column in a literal block.
func ExampleLocateYAML() {
	type Layer struct {
		Retry parse.Policy `yaml:"retry"`
	}
	type Plan struct {
		Layers []Layer `yaml:"layers"`
	}
	doc := []byte(`layers:
  - retry: backoff(100ms, 30s) & times(5)
  - retry: |
      backoff(100ms, 30s)
        & tmes(5)
`)
	var p Plan
	err := yaml.Unmarshal(doc, &p)
	fmt.Println(err)
	fmt.Println(parse.LocateYAML(doc, err))
	// Output:
	// yaml: line 5, column 5 after the indentation: unknown name "tmes"; did you mean "Times"?
	// yaml: line 5, column 11, at layers.1.retry: unknown name "tmes"; did you mean "Times"?
}
