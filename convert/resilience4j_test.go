package convert

import (
	"strings"
	"testing"
	"time"
)

// TestFromResilience4j follows Resilience4j's documentation: the Retry
// page (resilience4j.readme.io/docs/retry, "Create and configure Retry":
// maxAttempts 3 "including the initial call as the first attempt",
// waitDuration 500ms, enableExponentialBackoff false,
// exponentialBackoffMultiplier 1.5, enableRandomizedWait false,
// randomizedWaitFactor 0.5) and the Spring Boot page
// (resilience4j.readme.io/docs/getting-started-3, "Configuration", the
// resilience4j.retry instances and configs with baseConfig), checked
// against CommonRetryConfigurationProperties and IntervalFunction.
func TestFromResilience4j(t *testing.T) {
	doc := func(props string) string {
		return "resilience4j.retry:\n  instances:\n    backendA:\n" + indent(props, "      ")
	}
	runTable(t, Resilience4j, []tableCase{
		{name: "defaults", doc: doc("baseConfig:\n"), want: "exponential(500ms, 100%, 500ms) & times(3)"},
		{name: "docs example", doc: doc("maxAttempts: 3\nwaitDuration: 10s\nenableExponentialBackoff: true\nexponentialBackoffMultiplier: 2\n"),
			want: "exponential(10s, 200%, 2562047h47m16.854775807s) & times(3)"},
		{name: "capped", doc: doc("maxAttempts: 5\nwaitDuration: 100ms\nenableExponentialBackoff: true\nexponentialBackoffMultiplier: 2\nexponentialMaxWaitDuration: 1s\n"),
			want: "exponential(100ms, 200%, 1s) & times(5)"},
		{name: "kebab case, bare ms", doc: doc("max-attempts: 4\nwait-duration: 250\n"), want: "exponential(250ms, 100%, 250ms) & times(4)"},
		{name: "ISO duration", doc: doc("waitDuration: PT0.5S\n"), want: "exponential(500ms, 100%, 500ms) & times(3)"},
		{name: "no wait", doc: doc("waitDuration: 0\nmaxAttempts: 2\n"), want: "times(2)"},
		{name: "one attempt", doc: doc("maxAttempts: 1\n"), want: "times(1)"},
		{name: "randomized", doc: doc("waitDuration: 1s\nenableRandomizedWait: true\nrandomizedWaitFactor: 0.2\n"),
			want: "jittered(exponential(1s, 100%, 1s), 80%, 120%) & times(3)", notes: 1},
		{name: "both, capped after the jitter", doc: doc("waitDuration: 100ms\nenableExponentialBackoff: true\nexponentialBackoffMultiplier: 2\nenableRandomizedWait: true\nrandomizedWaitFactor: 0.5\nexponentialMaxWaitDuration: 2s\nmaxAttempts: 5\n"),
			want: "capped(jittered(exponential(100ms, 200%, 2562047h47m16.854775807s), 50%, 150%), 2s) & times(5)", notes: 1},
		{name: "max ignored without the multiplier", doc: doc("waitDuration: 100ms\nenableExponentialBackoff: true\nexponentialMaxWaitDuration: 2s\n"),
			want: "exponential(100ms, 150%, 2562047h47m16.854775807s) & times(3)", notes: 1},
		{name: "default 1.5 rounds to whole milliseconds", doc: doc("maxAttempts: 5\nenableExponentialBackoff: true\nwaitDuration: 500ms\n"),
			want: "exponential(500ms, 150%, 2562047h47m16.854775807s) & times(5)", notes: 1},
		{name: "without waitDuration the flags do nothing", doc: doc("enableExponentialBackoff: true\n"),
			want: "exponential(500ms, 100%, 500ms) & times(3)"},
		{name: "sub-millisecond wait", doc: doc("waitDuration: 1500us\n"), want: "exponential(1ms, 100%, 1ms) & times(3)", notes: 1},
		{name: "nested keys", doc: "resilience4j:\n  retry:\n    instances:\n      a:\n        maxAttempts: 2\n        waitDuration: 1s\n",
			want: "exponential(1s, 100%, 1s) & times(2)"},
		{name: "dotted keys", doc: "resilience4j.retry.instances.a.maxAttempts: 2\nresilience4j.retry.instances.a.waitDuration: 1s\n",
			want: "exponential(1s, 100%, 1s) & times(2)"},
		{name: "multiplier below 1", doc: doc("waitDuration: 1s\nenableExponentialBackoff: true\nexponentialBackoffMultiplier: 0.5\n"), err: "below 1", noEquiv: true},
		{name: "interval class", doc: doc("intervalBiFunction: com.example.MyInterval\n"), err: "intervalBiFunction: is a class", noEquiv: true},
		{name: "zero attempts", doc: doc("maxAttempts: 0\n"), err: "maxAttempts: must be at least 1"},
		{name: "factor out of range", doc: doc("randomizedWaitFactor: 1\n"), err: "must be in [0, 1)"},
		{name: "exponential needs 1ms", doc: doc("waitDuration: 0\nenableExponentialBackoff: true\n"), err: "must be at least 1ms"},
		{name: "typo", doc: doc("maxAttempt: 3\n"), err: "maxAttempt: is not a Resilience4j retry property"},
		{name: "bad duration", doc: doc("waitDuration: 1.5s\n"), err: `waitDuration: duration "1.5s"`},
		{name: "missing base", doc: doc("baseConfig: shared\n"), err: `names "shared", which configs does not define`},
		{name: "nothing", doc: "spring:\n  application:\n    name: x\n", err: "no instances or configs"},
		{name: "twice", doc: "resilience4j.retry.instances.a.maxAttempts: 2\nresilience4j:\n  retry:\n    instances:\n      a:\n        maxAttempts: 3\n", err: "is given twice"},
	})
}

func indent(s, by string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return by + strings.Join(lines, "\n"+by) + "\n"
}

// TestResilience4jInheritance checks baseConfig and configs.default as
// CommonRetryConfigurationProperties.createRetryConfig applies them.
func TestResilience4jInheritance(t *testing.T) {
	rs, err := FromResilience4j([]byte(`
resilience4j.retry:
  configs:
    default:
      maxAttempts: 4
      waitDuration: 200ms
      retryExceptions: [java.io.IOException]
    slow:
      waitDuration: 2s
      enableExponentialBackoff: true
      exponentialBackoffMultiplier: 2
      exponentialMaxWaitDuration: 10s
  instances:
    plain: {}
    inherits:
      maxAttempts: 6
    fromSlow:
      baseConfig: slow
    slowFlagsOwnWait:
      baseConfig: slow
      waitDuration: 1s
`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"configs.default":            "exponential(200ms, 100%, 200ms) & times(4)",
		"configs.slow":               "exponential(2s, 200%, 10s) & times(4)",
		"instances.plain":            "exponential(200ms, 100%, 200ms) & times(4)",
		"instances.inherits":         "exponential(200ms, 100%, 200ms) & times(6)",
		"instances.fromSlow":         "exponential(2s, 200%, 10s) & times(4)",
		"instances.slowFlagsOwnWait": "exponential(1s, 200%, 10s) & times(4)",
	}
	if len(rs) != len(want) {
		t.Fatalf("%d results; want %d", len(rs), len(want))
	}
	for _, r := range rs {
		runTable(t, Recur, []tableCase{{name: r.Name, doc: r.Schedule.String(), want: want[r.Name], notes: -1}})
	}
	if rs[2].Name != "instances.plain" || len(rs[2].Retained) != 1 {
		t.Errorf("%s retained %+v; want the default's retryExceptions", rs[2].Name, rs[2].Retained)
	}
}

func TestSpringDuration(t *testing.T) {
	for s, want := range map[string]time.Duration{
		"500": 500 * time.Millisecond, "10s": 10 * time.Second, "2m": 2 * time.Minute, "1d": 24 * time.Hour, "7MS": 7 * time.Millisecond,
		"PT0.5S": 500 * time.Millisecond, "PT1M30S": 90 * time.Second, "P1DT1H": 25 * time.Hour, "pt2s": 2 * time.Second,
	} {
		if got, err := parseSpringDuration(s); err != nil || got != want {
			t.Errorf("%q: %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"1.5s", "10 s", "P", "PT", "5w", "P1H"} {
		if _, err := parseSpringDuration(s); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
}

func TestResilience4jRoundTrip(t *testing.T) {
	roundTrip(t, Resilience4j, []string{
		"exponential(500ms, 100%, 500ms) & times(3)",
		"exponential(100ms, 200%, 1s) & times(5)",
		"exponential(10s, 200%, 2562047h47m16.854775807s) & times(3)",
		"exponential(500ms, 150%, 10s) & times(4)",
		"jittered(exponential(1s, 100%, 1s), 80%, 120%) & times(3)",
		"jittered(exponential(100ms, 200%, 2562047h47m16.854775807s), 50%, 150%) & times(4)",
		"capped(jittered(exponential(100ms, 200%, 2562047h47m16.854775807s), 50%, 150%), 2s) & times(5)",
		"times(3)",
		"times(1)",
	})
	refused(t, Resilience4j, map[string]string{
		"exponential(500ms, 150%, 10s) & times(5)":                     "1.687s in Resilience4j, 1.6875s here",
		"exponential(1s, 200%, 1m)":                                    "add a Times",
		"fulljitter(100ms, 2s) & times(3)":                             "symmetric",
		"backoff(100ms, 2s) & times(3)":                                "symmetric",
		"jittered(exponential(100ms, 200%, 2s), 50%, 150%) & times(3)": "uncapped exponential",
		"exponential(1500us, 100%, 1500us) & times(3)":                 "whole number of milliseconds",
		"linear(1s) & times(3)":                                        "none of Resilience4j's waits",
	})
}
