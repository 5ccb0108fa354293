package parse_test

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

// The configuration Check walks in the tests: a policy at each kind of
// place, under the tag names a file spells.
type (
	checkClient struct {
		Retry parse.Policy `json:"retry" yaml:"retry" policy:"required"`
		Poll  parse.Policy `yaml:"poll" policy:"default=spaced(1m)"`
	}
	checkBase struct {
		Hedge parse.Policy `toml:"hedge" policy:"default=spaced(50ms) & times(2)"`
	}
	checkConfig struct {
		checkBase
		Retry    parse.Policy            `json:"retry,omitempty" policy:"required"`
		Fallback *parse.Policy           `mapstructure:"fallback" policy:"default=times(3)"`
		Must     *parse.Policy           `koanf:"must" policy:"required"`
		Plain    parse.Policy            `json:"plain"` // no tag: left alone
		Clients  map[string]checkClient  `json:"clients"`
		Byname   map[string]parse.Policy `json:"byname" policy:"default=times(2)"`
		Layers   []checkClient           `yaml:"layers"`
		Optional *checkClient            `json:"optional"` // nil: not entered
		Set      *checkClient            `json:"set"`
		Any      any                     `json:"any"`
		hidden   parse.Policy            //lint:ignore U1000 an unexported field is left alone
	}
)

func TestCheck(t *testing.T) {
	times := func(n int) parse.Policy { return parse.Policy{Schedule: schedule.Times{N: n}} }
	minute := parse.Policy{Schedule: schedule.Spaced{Every: time.Minute}}
	hedge := parse.Policy{Schedule: schedule.Intersect{A: schedule.Spaced{Every: 50 * time.Millisecond}, B: schedule.Times{N: 2}}}
	three := times(3)

	cfg := checkConfig{
		Clients: map[string]checkClient{"billing": {Retry: times(5)}, "audit": {}},
		Byname:  map[string]parse.Policy{"a": {}, "b": times(4)},
		Layers:  []checkClient{{Retry: times(1), Poll: times(9)}, {}},
		Set:     &checkClient{},
		Any:     &checkClient{Retry: times(7)},
	}
	err := parse.Check(&cfg)
	want := []string{
		"retry: " + notSet("retry"),
		"must: " + notSet("must"),
		"clients.audit.retry: " + notSet("retry"),
		"layers.1.retry: " + notSet("retry"),
		"set.retry: " + notSet("retry"),
	}
	if diff := cmp.Diff(strings.Join(want, "\n"), errText(err)); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
	if !errors.Is(err, parse.ErrNotSet) {
		t.Errorf("errors.Is(err, ErrNotSet) = false")
	}
	var ferr *parse.FieldError
	if !errors.As(err, &ferr) || ferr.Field != "checkConfig.Retry" || ferr.Path != "retry" {
		t.Errorf("errors.As = %+v", ferr)
	}

	wantCfg := checkConfig{
		checkBase: checkBase{Hedge: hedge},
		Fallback:  &three,
		Clients:   map[string]checkClient{"billing": {Retry: times(5), Poll: minute}, "audit": {Poll: minute}},
		Byname:    map[string]parse.Policy{"a": times(2), "b": times(4)},
		Layers:    []checkClient{{Retry: times(1), Poll: times(9)}, {Poll: minute}},
		Set:       &checkClient{Poll: minute},
		Any:       &checkClient{Retry: times(7), Poll: minute},
	}
	if diff := cmp.Diff(wantCfg, cfg, cmp.AllowUnexported(checkConfig{})); diff != "" {
		t.Errorf("filled (-want +got):\n%s", diff)
	}
	// Once filled and set, the same configuration passes.
	cfg.Retry, cfg.Must = times(1), &three
	cfg.Clients["audit"] = checkClient{Retry: times(2)}
	cfg.Layers[1].Retry = times(2)
	cfg.Set.Retry = times(2)
	if err := parse.Check(&cfg); err != nil {
		t.Errorf("filled configuration: %v", err)
	}
}

// notSet is Check's message for a required policy missing at key.
func notSet(key string) string {
	return `no policy set, and one is required (is the key spelled "` + key + `" in the file?)`
}

func TestCheckTagErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  any
		want string
	}{
		{"default does not parse", &struct {
			Retry parse.Policy `json:"retry" policy:"default=times(0)"`
		}{}, `retry: field Retry: policy tag "default=times(0)": 1:7: Times: n 0 is below 1`},
		{"default is checked when set too", &struct {
			Retry parse.Policy `json:"retry" policy:"default=fulljitter(100ms"`
		}{Retry: parse.Policy{Schedule: schedule.Times{N: 1}}}, `retry: field Retry: policy tag "default=fulljitter(100ms": 1:17: unexpected end of input; expected "," or ")"`},
		{"empty default", &struct {
			Retry parse.Policy `policy:"default="`
		}{}, `Retry: field Retry: policy tag "default=": the default is empty`},
		{"unknown option", &struct {
			Retry parse.Policy `yaml:"retry" policy:"requried"`
		}{}, `retry: field Retry: policy tag "requried": want "required" or "default=POLICY"`},
		{"both", &struct {
			Retry parse.Policy `yaml:"retry" policy:"required,default=times(3)"`
		}{}, `retry: field Retry: policy tag "required,default=times(3)": want "required" or "default=POLICY"`},
		{"not a policy", &struct {
			Name string `yaml:"name" policy:"required"`
		}{}, `name: field Name: policy tag "required" on a field of type string, which holds no parse.Policy`},
		{"by value in an interface", &struct {
			Any any `json:"any"`
		}{Any: checkClient{Retry: parse.Policy{Schedule: schedule.Times{N: 1}}}},
			"any.poll: field checkClient.Poll: cannot set the default: the policy is held by value in an interface; hold a pointer to it there"},
		{"not a pointer", struct{}{}, "parse.Check: want a non-nil pointer to the configuration, got struct {}"},
		{"nil", (*checkConfig)(nil), "parse.Check: want a non-nil pointer to the configuration, got *parse_test.checkConfig"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, errText(parse.Check(tt.cfg))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckCycle checks that a configuration that points back into itself
// is walked once.
func TestCheckCycle(t *testing.T) {
	type node struct {
		Retry parse.Policy `json:"retry" policy:"default=times(2)"`
		Next  *node        `json:"next"`
	}
	n := &node{}
	n.Next = n
	if err := parse.Check(n); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(parse.Policy{Schedule: schedule.Times{N: 2}}, n.Retry); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestOr(t *testing.T) {
	def := schedule.Times{N: 3}
	if got := (parse.Policy{}).Or(def); got != def {
		t.Errorf("unset: Or = %v, want %v", got, def)
	}
	set := schedule.Spaced{Every: time.Second}
	if got := (parse.Policy{Schedule: set}).Or(def); got != set {
		t.Errorf("set: Or = %v, want %v", got, set)
	}
}

// FuzzCheckTag checks that any policy tag gives an error or a valid
// default, and never a panic.
func FuzzCheckTag(f *testing.F) {
	for _, s := range []string{"required", "default=fulljitter(100ms, 2s) & times(3)", "default=", "default=times(0)", " required ", "default=(", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tag string) {
		typ := reflect.StructOf([]reflect.StructField{{
			Name: "Retry", Type: reflect.TypeFor[parse.Policy](), Tag: reflect.StructTag(`json:"retry" policy:` + strconv.Quote(tag)),
		}})
		cfg := reflect.New(typ)
		err := parse.Check(cfg.Interface())
		got := cfg.Elem().Field(0).Interface().(parse.Policy)
		if err != nil {
			var ferr *parse.FieldError
			if !errors.As(err, &ferr) || ferr.Path != "retry" {
				t.Fatalf("error %v is not a *FieldError at retry", err)
			}
			if got.Schedule != nil {
				t.Fatalf("error %v, and the policy was set to %v", err, got)
			}
			return
		}
		if got.Schedule == nil {
			t.Fatalf("tag %q: no error and no default", tag)
		}
		if err := schedule.Validate(got.Schedule); err != nil {
			t.Fatalf("tag %q: the default is invalid: %v", tag, err)
		}
	})
}
