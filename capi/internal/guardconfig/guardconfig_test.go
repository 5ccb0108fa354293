package guardconfig

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
)

// TestConfigOutOfRange checks that a value out of range is refused with
// the key named, for every key that has a range: breaker's and budget's
// errors name Go fields, which the config's messages translate.
func TestConfigOutOfRange(t *testing.T) {
	tests := []struct{ config, want string }{
		{`{"breaker": {"failure_rate": 150}}`, "breaker.failure_rate = 150"},
		{`{"breaker": {"slow_call": "1s", "slow_rate": 150}}`, "breaker.slow_rate = 150"},
		{`{"breaker": {"slow_call": "-1s"}}`, "breaker.slow_call"},
		{`{"breaker": {"min_calls": -1}}`, "breaker.min_calls = -1"},
		{`{"breaker": {"count_window": -1}}`, "breaker.count_window = -1"},
		{`{"breaker": {"window": "5ns"}}`, "breaker.window = 5ns"},
		{`{"breaker": {"open_for": "times(1)"}}`, "breaker.open_for stops before its first delay"},
		{`{"breaker": {"half_open_probes": -1}}`, "breaker.half_open_probes = -1"},
		{`{"breaker": {"consecutive_failures": 99999999999}}`, "breaker.consecutive_failures is 99999999999, not an integer"},
		{`{"budget": {"kind": "token_bucket", "max_tokens": 5000}}`, "budget.max_tokens = 5000"},
		{`{"budget": {"kind": "token_bucket", "token_ratio": 0.0001}}`, "budget.token_ratio = 0.0001"},
		{`{"budget": {"kind": "token_bucket", "token_ratio": "x"}}`, "budget.token_ratio is a string, not a number"},
		{`{"budget": {"kind": "token_bucket", "token_ratio": 1e999}}`, "budget.token_ratio is 1e999, out of range"},
		{`{"budget": {"kind": "ratio", "percent": 2000}}`, "budget.percent = 2000"},
		{`{"budget": {"kind": "ratio", "window": "1ns"}}`, "budget.window = 1ns"},
		{`{"budget": {"kind": "adaptive", "window": "1ns"}}`, "budget.window = 1ns"},
		{`{"budget": {"kind": "adaptive", "k": 0.5}}`, "budget.k = 0.5"},
		{`{"budget": {"kind": 3}}`, "budget.kind is a number, not a string"},
		{`{"budget": {"kind": "adaptive", "max_tokens": 3}}`, `budget.max_tokens does not apply to kind "adaptive"`},
		{`{"name": 3}`, "name is a number, not a string"},
		{`{"name": null}`, "name is null, not a string"},
		{`{"breaker": {"window": null}}`, "breaker.window is null, not a duration string"},
		{`{"breaker": {"nested": {"x": 1, "x": 2}}}`, `key "breaker.nested.x" is repeated`},
		{`{"breaker": {"a": [{"x": 1, "x": 2}]}}`, `key "breaker.a[0].x" is repeated`},
		{`{"breaker": {"a": [1, {"x": 1}]}}`, `unknown key "breaker.a"`},
		{`"x"`, "config is a string, not an object"},
		{`null`, "config is null, not an object"},
		{`{"retry": "times(3)"} x`, "config has more after its object"},
		{`{"retry": "times(3)"`, "config"},
	}
	for _, tt := range tests {
		_, f := Decode(tt.config)
		if f == nil {
			t.Errorf("%s: no error", tt.config)
			continue
		}
		if !strings.Contains(f.Error(), tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.config, f.Error(), tt.want)
		}
	}
}

// TestConfigDecodes checks what a config decodes to.
func TestConfigDecodes(t *testing.T) {
	c, f := Decode(`{"name": "db", "retry": "times(3)", "breaker": {"consecutive_failures": 3, "slow_call": "2s", "window": "30s", "open_for": "spaced(10s)", "half_open_probes": 2, "count_window": 0}}`)
	if f != nil {
		t.Fatal(f)
	}
	if c.Name != "db" || c.Retry.String() != "Times(3)" || c.Breaker == nil {
		t.Fatalf("%+v", c)
	}
	b := c.Breaker
	if b.Name != "db" || b.ConsecutiveFailures != 3 || b.SlowCall != 2*time.Second || b.Window != 30*time.Second || b.OpenFor.String() != "Spaced(10s)" || b.HalfOpenProbes != 2 {
		t.Errorf("breaker %+v", b)
	}
	if c.Budget != budget.DefaultConfig() || c.BudgetKind != "token_bucket" {
		t.Errorf("a budget left out is %v %q, want the default token bucket", c.Budget, c.BudgetKind)
	}

	c, f = Decode(`{"retry": null, "breaker": null, "budget": null}`)
	if f != nil || c.Retry != nil || c.Breaker != nil || c.Budget != nil {
		t.Errorf("nulls: %+v %v", c, f)
	}
	c, f = Decode(`{"breaker": {}}`)
	if f != nil || c.Breaker == nil || !reflect.DeepEqual(*c.Breaker, breaker.Config{}) {
		t.Errorf("an empty breaker is %+v %v, want the zero Config", c.Breaker, f)
	}
	c, f = Decode(`{"budget": {"kind": "ratio", "percent": 20, "min_per_second": -1, "window": "1m"}}`)
	if want := (budget.RatioConfig{Percent: 20, MinPerSecond: -1, Window: time.Minute}); f != nil || c.Budget != want {
		t.Errorf("ratio: %+v %v", c.Budget, f)
	}
	c, f = Decode(`{"budget": {"kind": "adaptive", "k": 1.5, "window": "1m"}}`)
	if want := (budget.AdaptiveConfig{K: 1.5, Window: time.Minute}); f != nil || c.Budget != want || c.BudgetKind != "adaptive" {
		t.Errorf("adaptive: %+v %v", c.Budget, f)
	}
}

// FuzzConfig checks that no config makes Decode panic, and that each
// one it accepts builds its breaker and budget.
func FuzzConfig(f *testing.F) {
	for _, s := range []string{`{}`, `{"retry": "times(3)", "breaker": {"window": "1s"}, "budget": {"kind": "ratio"}}`, `{"a": [1, {"b": null}]}`, `[`, `{"budget": {"kind": "adaptive", "k": 2}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Decode(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("%q: an empty message", s)
			}
			return
		}
		if c.Breaker != nil {
			if _, err := breaker.New(*c.Breaker); err != nil {
				t.Fatalf("%q decodes, but makes no breaker: %v", s, err)
			}
		}
		if c.Budget != nil {
			if _, err := c.Budget.New(); err != nil {
				t.Fatalf("%q decodes, but makes no budget: %v", s, err)
			}
		}
	})
}
