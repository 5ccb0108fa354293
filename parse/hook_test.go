package parse_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

func TestDecodeHook(t *testing.T) {
	hook := parse.DecodeHook()
	policyType := reflect.TypeFor[parse.Policy]()
	tests := []struct {
		name    string
		to      reflect.Type
		data    any
		want    any
		wantErr string
	}{
		{"string", policyType, "times(3)", parse.Policy{Schedule: schedule.Times{N: 3}}, ""},
		{"empty string", policyType, "", parse.Policy{}, ""},
		{"string that does not parse", policyType, "times(0)", nil, "1:7: Times: n 0 is below 1"},
		{"mapping", policyType, map[string]any{"times": 3}, nil, "found a mapping" + suchAs},
		{"mapping of any", policyType, map[any]any{"times": 3}, nil, "found a mapping" + suchAs},
		{"list", policyType, []any{"times(3)"}, nil, "found a list" + suchAs},
		{"list of strings", policyType, []string{"times(3)"}, nil, "found a list" + suchAs},
		{"int", policyType, 3, nil, "found the number 3" + suchAs},
		{"uint8", policyType, uint8(3), nil, "found the number 3" + suchAs},
		{"float", policyType, 1.5, nil, "found the number 1.5" + suchAs},
		{"bool", policyType, true, nil, "found the boolean true" + suchAs},
		{"time", policyType, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), nil, "found the timestamp 2026-12-01" + suchAs},
		{"struct", policyType, struct{ Times int }{3}, nil, "found a mapping" + suchAs},
		{"pointer to a number", policyType, new(int), nil, "found the number 0" + suchAs},
		{"func", policyType, func() {}, nil, "found a value of type func()" + suchAs},
		{"nil", policyType, nil, nil, ""},
		{"a Policy already", policyType, parse.Policy{Schedule: schedule.Forever{}}, parse.Policy{Schedule: schedule.Forever{}}, ""},
		{"another type", reflect.TypeFor[int](), map[string]any{"a": 1}, map[string]any{"a": 1}, ""},
		{"a pointer to a Policy: mapstructure comes back for the Policy", reflect.TypeFor[*parse.Policy](), 3, 3, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var from reflect.Type
			if tt.data != nil {
				from = reflect.TypeOf(tt.data)
			}
			got, err := hook(from, tt.to, tt.data)
			if diff := cmp.Diff(tt.wantErr, errText0(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// A string that does not parse is the *Error, for errors.As.
	_, err := hook(reflect.TypeFor[string](), policyType, "tmes(3)")
	var perr *parse.Error
	if !errors.As(err, &perr) {
		t.Errorf("errors.As(%v, *parse.Error) = false", err)
	}
}

// errText0 returns err's message, or "" for nil.
func errText0(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
