package grpcconfig

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/budget"
)

const fullConfig = `{
  "loadBalancingConfig": [{"round_robin": {}}],
  "methodConfig": [
    {
      "name": [{"service": "echo.Echo", "method": "Say"}, {"service": "echo.Admin"}],
      "timeout": "5s",
      "retryPolicy": {
        "maxAttempts": 4,
        "initialBackoff": "0.1s",
        "maxBackoff": "1s",
        "backoffMultiplier": 2,
        "retryableStatusCodes": ["UNAVAILABLE", "RESOURCE_EXHAUSTED"]
      }
    },
    {"name": [{"service": "echo.Echo"}]},
    {
      "name": [{}],
      "retryPolicy": {
        "maxAttempts": 9, "initialBackoff": "0.250s", "maxBackoff": "30s",
        "backoffMultiplier": 1.5, "retryableStatusCodes": [14]
      }
    }
  ],
  "retryThrottling": {"maxTokens": 20, "tokenRatio": 0.25}
}`

func TestParse(t *testing.T) {
	got, err := Parse([]byte(fullConfig))
	if err != nil {
		t.Fatal(err)
	}
	want := &ServiceConfig{
		Methods: []MethodConfig{
			{
				Names: []Name{{Service: "echo.Echo", Method: "Say"}, {Service: "echo.Admin"}},
				RetryPolicy: &RetryPolicy{
					MaxAttempts: 4, InitialBackoff: 100 * time.Millisecond, MaxBackoff: time.Second,
					BackoffMultiplier: 2, RetryableStatusCodes: []Code{Unavailable, 8},
				},
			},
			{Names: []Name{{Service: "echo.Echo"}}},
			{
				Names: []Name{{}},
				RetryPolicy: &RetryPolicy{
					MaxAttempts: 9, InitialBackoff: 250 * time.Millisecond, MaxBackoff: 30 * time.Second,
					BackoffMultiplier: 1.5, RetryableStatusCodes: []Code{Unavailable},
				},
			},
		},
		Throttling: &budget.TokenBucketConfig{MaxTokens: 20, TokenRatio: 0.25},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
}

func TestLookup(t *testing.T) {
	sc, err := Parse([]byte(fullConfig))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		method string
		want   int // index into sc.Methods
	}{
		{"/echo.Echo/Say", 0},    // the method itself
		{"/echo.Admin/Reset", 0}, // its service
		{"/echo.Echo/Shout", 1},  // the service, whose entry has no policy
		{"/other.Svc/Call", 2},   // the default
		{"", 2},
	}
	for _, tt := range tests {
		got, ok := sc.Lookup(tt.method)
		if !ok {
			t.Errorf("Lookup(%q) found nothing", tt.method)
			continue
		}
		if diff := cmp.Diff(sc.Methods[tt.want], got); diff != "" {
			t.Errorf("Lookup(%q) (-want +got):\n%s", tt.method, diff)
		}
	}
	noDefault, err := Parse([]byte(`{"methodConfig": [{"name": [{"service": "a.A"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := noDefault.Lookup("/b.B/M"); ok {
		t.Errorf("Lookup without a default = %+v, true; want false", got)
	}
	var nilConfig *ServiceConfig
	if _, ok := nilConfig.Lookup("/a.A/M"); ok {
		t.Error("nil ServiceConfig found a method config")
	}
}

func TestParseEmpty(t *testing.T) {
	for _, in := range []string{`{}`, `{"methodConfig": []}`, `{"methodConfig": [{"name": [{"service": "a.A"}], "retryPolicy": null}]}`} {
		sc, err := Parse([]byte(in))
		if err != nil {
			t.Errorf("Parse(%s): %v", in, err)
			continue
		}
		for _, m := range sc.Methods {
			if m.RetryPolicy != nil {
				t.Errorf("Parse(%s) has a retry policy %+v", in, m.RetryPolicy)
			}
		}
		if sc.Throttling != nil {
			t.Errorf("Parse(%s) has throttling %+v", in, sc.Throttling)
		}
	}
}

func TestParseErrors(t *testing.T) {
	policy := func(body string) string {
		return `{"methodConfig": [{"name": [{"service": "a.A"}]}, {"name": [{"service": "b.B"}], "retryPolicy": {` + body + `}}]}`
	}
	const ok = `"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]`
	tests := []struct {
		name, in, want string
	}{
		{"syntax", "{\n  \"methodConfig\": [\n  }", "grpcconfig: line 3: invalid character '}' looking for beginning of value"},
		{"not an object", `[]`, "grpcconfig: a service config is a JSON object; got an array"},
		{"methodConfig type", `{"methodConfig": {}}`, "grpcconfig: methodConfig must be a JSON array; got an object"},
		{"maxAttempts missing", policy(`"initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]`),
			"grpcconfig: methodConfig[1].retryPolicy.maxAttempts must be at least 2; got 0"},
		{"maxAttempts 1", policy(`"maxAttempts": 1, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]`),
			"grpcconfig: methodConfig[1].retryPolicy.maxAttempts must be at least 2; got 1"},
		{"maxAttempts string", policy(`"maxAttempts": "3"`),
			"grpcconfig: methodConfig[1].retryPolicy.maxAttempts must be a JSON integer; got a string"},
		{"maxAttempts fraction", policy(`"maxAttempts": 2.5`),
			"grpcconfig: methodConfig[1].retryPolicy.maxAttempts must be a JSON integer; got a number 2.5"},
		{"initialBackoff zero", policy(`"maxAttempts": 3, "initialBackoff": "0s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]`),
			`grpcconfig: methodConfig[1].retryPolicy.initialBackoff must be positive; got "0s"`},
		{"initialBackoff Go syntax", policy(`"maxAttempts": 3, "initialBackoff": "100ms"`),
			`grpcconfig: methodConfig[1].retryPolicy: duration "100ms": want decimal seconds, such as "0.1s"`},
		{"initialBackoff number", policy(`"maxAttempts": 3, "initialBackoff": 0.1`),
			`grpcconfig: methodConfig[1].retryPolicy: duration 0.1: want a string such as "0.1s"`},
		{"maxBackoff negative", policy(`"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "-1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]`),
			`grpcconfig: methodConfig[1].retryPolicy.maxBackoff must be positive; got "-1s"`},
		{"multiplier zero", policy(`"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 0, "retryableStatusCodes": ["UNAVAILABLE"]`),
			"grpcconfig: methodConfig[1].retryPolicy.backoffMultiplier must be a positive number; got 0"},
		{"no codes", policy(`"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": []`),
			"grpcconfig: methodConfig[1].retryPolicy.retryableStatusCodes must name at least one status code"},
		{"bad code", policy(`"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABEL"]`),
			`grpcconfig: methodConfig[1].retryPolicy: unknown status code "UNAVAILABEL": want a name such as "UNAVAILABLE" or a number from 0 to 16`},
		{"method without service", `{"methodConfig": [{"name": [{"method": "M"}]}]}`,
			"grpcconfig: methodConfig[0].name[0] has a method but no service"},
		{"duplicate name", `{"methodConfig": [{"name": [{"service": "a.A"}]}, {"name": [{"service": "b.B"}, {"service": "a.A"}], "retryPolicy": {` + ok + `}}]}`,
			"grpcconfig: methodConfig[1].name[1] names /a.A/*, already named by methodConfig[0].name[0]"},
		{"two defaults", `{"methodConfig": [{"name": [{}]}, {"name": [{"service": ""}]}]}`,
			"grpcconfig: methodConfig[1].name[0] names *, already named by methodConfig[0].name[0]"},
		{"maxTokens missing", `{"retryThrottling": {"tokenRatio": 0.1}}`,
			"grpcconfig: retryThrottling.maxTokens is required"},
		{"maxTokens fraction", `{"retryThrottling": {"maxTokens": 10.5, "tokenRatio": 0.1}}`,
			"grpcconfig: retryThrottling.maxTokens must be a whole number from 1 to 1000; got 10.5"},
		{"maxTokens too many", `{"retryThrottling": {"maxTokens": 1001, "tokenRatio": 0.1}}`,
			"grpcconfig: retryThrottling.maxTokens must be a whole number from 1 to 1000; got 1001"},
		{"tokenRatio missing", `{"retryThrottling": {"maxTokens": 10}}`,
			"grpcconfig: retryThrottling.tokenRatio is required"},
		{"tokenRatio tiny", `{"retryThrottling": {"maxTokens": 10, "tokenRatio": 0.0001}}`,
			"grpcconfig: retryThrottling.tokenRatio must be at least 0.001; got 0.0001"},
		{"tokenRatio above maxTokens", `{"retryThrottling": {"maxTokens": 1, "tokenRatio": 2}}`,
			"grpcconfig: retryThrottling.tokenRatio is not usable: budget: TokenBucketConfig.TokenRatio = 2 is not from 0.001 to MaxTokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := Parse([]byte(tt.in))
			if err == nil {
				t.Fatalf("Parse succeeded: %+v", sc)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNamePathAndString(t *testing.T) {
	tests := []struct {
		n          Name
		path, text string
	}{
		{Name{Service: "a.A", Method: "M"}, "/a.A/M", "/a.A/M"},
		{Name{Service: "a.A"}, "/a.A/", "/a.A/*"},
		{Name{}, "", "*"},
	}
	for _, tt := range tests {
		if got := tt.n.Path(); got != tt.path {
			t.Errorf("%+v.Path() = %q; want %q", tt.n, got, tt.path)
		}
		if got := tt.n.String(); got != tt.text {
			t.Errorf("%+v.String() = %q; want %q", tt.n, got, tt.text)
		}
	}
}
