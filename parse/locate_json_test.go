package parse_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/parse"
)

func TestLocateJSON(t *testing.T) {
	type withMap struct {
		Policies map[string]parse.Policy `json:"policies"`
	}
	type withList struct {
		Name    string         `json:"name"`
		Retries []parse.Policy `json:"retries"`
	}
	type other struct {
		Jobs []struct {
			Retry string `json:"retry"`
		} `json:"jobs"`
		Retry parse.Policy `json:"retry"`
	}
	tests := []struct {
		name, doc string
		into      any
		want      string
		at        string // what the line and column point at
	}{
		{"struct field", "{\n  \"name\": \"billing\",\n  \"retry\": \"backoff(100ms, 30s) & times(0)\"\n}",
			&config{}, "json: line 3, column 41, at retry: Times: n 0 is below 1", "0"},
		{"nested", "{\"clients\": {\n  \"billing\": {\n    \"retry\": \"tmes(5)\"}}}",
			&nested{}, `json: line 3, column 15, at clients.billing.retry: unknown name "tmes"; did you mean "Times"?`, "t"},
		{"escapes", "{\"retry\": \"times(1) \\u0026\\n times(0)\"}",
			&config{}, "json: line 1, column 36, at retry: Times: n 0 is below 1", "0"},
		{"wrong type", "{\n  \"retry\": {\"times\": 3}\n}",
			&config{}, "json: line 2, column 12, at retry: found an object" + suchAs, "{"},
		{"map value", "{\"policies\": {\n  \"a\": \"times(1)\",\n  \"b\": \"times(0)\"}}",
			&withMap{}, "json: line 3, column 15, at policies.b: Times: n 0 is below 1", "0"},
		{"list element", "{\"name\": \"x\", \"retries\": [\"times(1)\",\n   \"forever\", 5]}",
			&withList{}, "json: line 2, column 15, at retries: found the number 5" + suchAs, "5"},
		{"whole document", "\n  \"forever & tmes(3)\"", &parse.Policy{},
			`json: line 2, column 14: unknown name "tmes"; did you mean "Times"?`, "t"},
		{"same key elsewhere", "{\"jobs\": [{\"retry\": \"times(0)x\"}],\n \"retry\": \"times(0)\"}",
			&other{}, "json: line 2, column 18, at retry: Times: n 0 is below 1", "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := json.Unmarshal([]byte(tt.doc), tt.into)
			if err == nil {
				t.Fatal("json.Unmarshal succeeded")
			}
			located := parse.LocateJSON([]byte(tt.doc), err)
			if diff := cmp.Diff(tt.want, errText(located)); diff != "" {
				t.Fatalf("LocateJSON of %q (-want +got):\n%s", err, diff)
			}
			var cerr *parse.ConfigError
			if !errors.As(located, &cerr) {
				t.Fatalf("%T is not a *parse.ConfigError", located)
			}
			if got := runeAt(tt.doc, cerr.Line, cerr.Column); got != tt.at {
				t.Errorf("line %d, column %d holds %q, want %q", cerr.Line, cerr.Column, got, tt.at)
			}
			var perr *parse.Error
			if errors.As(located, &perr) != (cerr.Found == "") {
				t.Errorf("errors.As(*parse.Error) = %v with Found %q", cerr.Found == "", cerr.Found)
			}
		})
	}
}

// TestLocateJSONOther checks that errors not about a Policy, and one whose
// value is not in the document given, come back as they were.
func TestLocateJSONOther(t *testing.T) {
	var c config
	syntax := json.Unmarshal([]byte(`{"retry": `), &c)
	wrongName := json.Unmarshal([]byte(`{"name": 5}`), &c)
	policy := json.Unmarshal([]byte(`{"retry": "times(0)"}`), &c)
	for _, tc := range []struct {
		name string
		doc  string
		err  error
	}{
		{"nil", "{}", nil},
		{"syntax", `{"retry": `, syntax},
		{"another type", `{"name": 5}`, wrongName},
		{"another document", `{"retry": "times(1)"}`, policy},
	} {
		if got := parse.LocateJSON([]byte(tc.doc), tc.err); got != tc.err {
			t.Errorf("%s: LocateJSON(%v) = %v, want it unchanged", tc.name, tc.err, got)
		}
	}
}
