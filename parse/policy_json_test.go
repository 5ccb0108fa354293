package parse_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

func TestPolicyJSONErrors(t *testing.T) {
	const field = " into Go struct field config.retry of type parse.Policy"
	tests := []struct {
		name, doc, want, wantField string
		into                       any // &config{} when nil
	}{
		{"invalid", `{"retry": "times(0)"}`,
			`json: cannot unmarshal "times(0)" (character 7 of the string: Times: n 0 is below 1)` + field, "retry", nil},
		{"syntax", `{"name": "billing", "retry": "backoff(100ms, 30s) & times(5) thne forever"}`,
			`json: cannot unmarshal "backoff(100ms, 30s) & times(5) thne fore…" (character 32 of the string: unknown operator "thne"; did you mean "then"?)` + field, "retry", nil},
		{"nested key path", `{"clients": {"billing": {"retry": "tmes(5)"}}}`,
			`json: cannot unmarshal "tmes(5)" (character 1 of the string: unknown name "tmes"; did you mean "Times"?) into Go struct field client.clients.billing.retry of type parse.Policy`,
			"clients.billing.retry", &nested{}},
		{"escaped line break", `{"retry": "times(1)\n& times(0)"}`,
			`json: cannot unmarshal "times(1)\n& times(0)" (character 19 of the string: Times: n 0 is below 1)` + field, "retry", nil},
		{"unicode escape", `{"retry": "times(1) \u0026 times(0)"}`,
			`json: cannot unmarshal "times(1) & times(0)" (character 23 of the string: Times: n 0 is below 1)` + field, "retry", nil},
		{"surrogate pair", `{"retry": "times(1) # \ud83d\ude00\ntimes(0)"}`,
			`json: cannot unmarshal "times(1) # 😀\ntimes(0)" (character 26 of the string: unexpected "times"; expected an operator or end of input)` + field, "retry", nil},
		{"byte order mark", "{\"retry\": \"\ufefftimes(0)\"}",
			`json: cannot unmarshal "\ufefftimes(0)" (character 8 of the string: Times: n 0 is below 1)` + field, "retry", nil},
		// Values of the wrong type.
		{"number", `{"retry": 5}`, "json: cannot unmarshal the number 5 (" + suchAs[2:] + ")" + field, "retry", nil},
		{"boolean", `{"retry": false}`, "json: cannot unmarshal the boolean false (" + suchAs[2:] + ")" + field, "retry", nil},
		{"object", `{"retry": {"times": 3}}`, "json: cannot unmarshal an object (" + suchAs[2:] + ")" + field, "retry", nil},
		{"array", `{"retry": ["times(3)"]}`, "json: cannot unmarshal an array (" + suchAs[2:] + ")" + field, "retry", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			into := tt.into
			if into == nil {
				into = &config{}
			}
			err := json.Unmarshal([]byte(tt.doc), into)
			if diff := cmp.Diff(tt.want, errText(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			var terr *json.UnmarshalTypeError
			if !errors.As(err, &terr) {
				t.Fatalf("error %T is not a *json.UnmarshalTypeError", err)
			}
			if diff := cmp.Diff(tt.wantField, terr.Field); diff != "" {
				t.Errorf("Field (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPolicyJSONNotSet(t *testing.T) {
	preset := config{Name: "billing", Retry: wantRetry}
	tests := []struct {
		name, doc string
		want      parse.Policy
	}{
		{"empty string clears", `{"retry": ""}`, parse.Policy{}},
		{"null leaves as it was", `{"retry": null}`, wantRetry},
		{"absent leaves as it was", `{"name": "billing"}`, wantRetry},
		{"escaped text", `{"retry": "times(1) \u0026 times(2)"}`, parse.Policy{Schedule: schedule.Intersect{A: schedule.Times{N: 1}, B: schedule.Times{N: 2}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := preset
			if err := json.Unmarshal([]byte(tt.doc), &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Retry); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	got := preset
	if err := json.Unmarshal([]byte(`{"retry": {"times": 3}}`), &got); err == nil {
		t.Fatal("an object was accepted")
	}
	if diff := cmp.Diff(preset, got); diff != "" {
		t.Errorf("after a failed decode (-want +got):\n%s", diff)
	}
	// Called directly, not through encoding/json.
	var p parse.Policy
	if err := p.UnmarshalJSON(nil); err == nil || !strings.Contains(err.Error(), "no value (a policy is") {
		t.Errorf("UnmarshalJSON(nil) = %v, want no value (a policy is …", err)
	}
}
