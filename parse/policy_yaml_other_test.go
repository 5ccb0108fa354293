package parse_test

import (
	"errors"
	"reflect"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

// fakeYAML is the unmarshal function of a YAML decoder other than
// go.yaml.in/yaml/v3, as gopkg.in/yaml.v3 calls UnmarshalYAML with it: it
// stores value into a *any and fails for any other type, with the type
// error that tells line (none if line is 0).
func fakeYAML(value any, line int) func(any) error {
	return func(out any) error {
		if p, ok := out.(*any); ok {
			*p = value
			return nil
		}
		if line == 0 {
			return errors.New("cannot decode")
		}
		return errors.New("yaml: unmarshal errors:\n  line " + strconv.Itoa(line) + ": cannot unmarshal !!map into " + reflect.TypeOf(out).Elem().String())
	}
}

func TestPolicyYAMLOtherDecoder(t *testing.T) {
	tests := []struct {
		name  string
		value any
		line  int
		want  string
	}{
		{"mapping", map[string]any{"times": 3}, 4, "yaml: line 4: found a mapping" + suchAs},
		{"mapping of any", map[any]any{"times": 3}, 4, "yaml: line 4: found a mapping" + suchAs},
		{"number", 3, 2, "yaml: line 2: found the number 3" + suchAs},
		{"string that does not parse", "times(0)", 5, "yaml: line 5: in the policy that starts here, at 1:7 of its text: Times: n 0 is below 1"},
		{"no line", map[string]any{}, 0, "yaml: found a mapping" + suchAs},
		{"no line, string", "times(0)", 0, "yaml: at 1:7 of the policy: Times: n 0 is below 1"},
		{"string", "times(3)", 1, "<nil>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p parse.Policy
			err := p.UnmarshalYAML(fakeYAML(tt.value, tt.line))
			if diff := cmp.Diff(tt.want, errText(err)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	var p parse.Policy
	if err := p.UnmarshalYAML(fakeYAML("times(3)", 1)); err != nil || p.Schedule != (schedule.Times{N: 3}) {
		t.Errorf("times(3): %v, %v", p, err)
	}
}
