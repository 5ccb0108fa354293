package configtest

import (
	"testing"

	"github.com/go-viper/mapstructure/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

// TestDecodeHookPointer checks parse.DecodeHook with mapstructure itself,
// for a *Policy field and a list of policies: mapstructure calls the hook
// again for the Policy behind the pointer and for each element.
func TestDecodeHookPointer(t *testing.T) {
	type target struct {
		Retry  *parse.Policy  `mapstructure:"retry"`
		Layers []parse.Policy `mapstructure:"layers"`
	}
	decode := func(in map[string]any) (target, error) {
		var out target
		dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{DecodeHook: parse.DecodeHook(), Result: &out})
		if err != nil {
			t.Fatal(err)
		}
		return out, dec.Decode(in)
	}
	got, err := decode(map[string]any{"retry": "times(3)", "layers": []any{"times(1)", "spaced(1s)"}})
	if err != nil {
		t.Fatal(err)
	}
	want := target{
		Retry:  &parse.Policy{Schedule: schedule.Times{N: 3}},
		Layers: []parse.Policy{{Schedule: schedule.Times{N: 1}}, policy(t, "spaced(1s)")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for msg, in := range map[string]map[string]any{
		"'retry' found a mapping" + suchAs:        {"retry": map[string]any{"times": 3}},
		"'layers[1]' found the number 5" + suchAs: {"layers": []any{"times(1)", 5}},
	} {
		_, err := decode(in)
		if diff := cmp.Diff("decoding failed due to the following error(s):\n\n"+msg, errorText(err)); diff != "" {
			t.Errorf("error (-want +got):\n%s", diff)
		}
	}
}
