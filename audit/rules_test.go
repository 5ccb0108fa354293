package audit_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/audit"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

// passing returns the sample plan, as examples/audit/resilience4j.json
// writes it: one Resilience4j layer with full-jitter backoff, three
// attempts, a breaker with slow-call detection (Resilience4j's defaults
// otherwise) and a 10% retry budget, under a propagated 10s deadline.
func passing() audit.Plan {
	return audit.Plan{
		Name:       "checkout: a single-layer Resilience4j plan",
		Dependency: "payments-api",
		Deadline:   audit.Duration(10 * time.Second),
		Layers: []audit.Layer{{
			Name:               "checkout",
			Library:            "resilience4j 2.2",
			Retry:              parse.Policy{Schedule: schedule.Intersect{A: schedule.FullJitter(100*time.Millisecond, 30*time.Second), B: schedule.Times{N: 3}}},
			RetryOn:            []int{429, 502, 503, 504},
			AttemptTimeout:     audit.Duration(2 * time.Second),
			PropagatesDeadline: true,
			Breaker: &audit.Breaker{
				FailureRate:    50,
				SlowCall:       audit.Duration(time.Second),
				SlowRate:       50,
				MinCalls:       100,
				Window:         audit.Duration(time.Minute),
				OpenFor:        parse.Policy{Schedule: schedule.Spaced{Every: time.Minute}},
				HalfOpenProbes: 10,
			},
			Budget:     &audit.Budget{Kind: audit.Ratio, Percent: 10},
			Operations: []audit.Operation{{Name: "GET /payments/{id}", Idempotent: true}, {Name: "POST /payments", IdempotencyKey: true}},
		}},
	}
}

func TestPassingPlanPasses(t *testing.T) {
	want := audit.Report{Pass: true, Score: 100, Findings: []audit.Finding{}, Recommendations: []string{}}
	if diff := cmp.Diff(want, audit.Run(passing())); diff != "" {
		t.Errorf("Run(passing()) (-want +got):\n%s", diff)
	}
}

// TestEachRuleFiresAndHoldsBack changes the passing plan in one way at a
// time: rows with fires set must bring a finding of the rule, the others
// must not. Every rule has rows of both kinds.
func TestEachRuleFiresAndHoldsBack(t *testing.T) {
	retry := func(p *audit.Plan, src string) {
		s, err := parse.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		p.Layers[0].Retry = parse.Policy{Schedule: s}
	}
	hedge := func(p *audit.Plan, src string) {
		s, err := parse.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		p.Layers[0].Hedge = parse.Policy{Schedule: s}
	}
	second := func(p *audit.Plan, policy string) {
		l := passing().Layers[0]
		l.Name = "frontend"
		p.Layers = append([]audit.Layer{l}, p.Layers...)
		retry(p, policy) // the new first layer
	}
	open := func(p *audit.Plan, every time.Duration) {
		p.Layers[0].Breaker.RetryOnOpen = true
		p.Layers[0].Breaker.OpenFor = parse.Policy{Schedule: schedule.Spaced{Every: every}}
	}
	tests := []struct {
		rule, name string
		fires      bool
		change     func(p *audit.Plan)
	}{
		{"retry-amplification", "two layers retry", true, func(p *audit.Plan) { second(p, "fulljitter(100ms, 1s) & times(2)") }},
		{"retry-amplification", "the upper layer fails fast", false, func(p *audit.Plan) { second(p, "times(1)") }},
		{"retry-amplification", "the upper layer has no policy", false, func(p *audit.Plan) { second(p, "times(1)"); p.Layers[0].Retry = parse.Policy{} }},

		{"unbounded-policy", "never stops", true, func(p *audit.Plan) { retry(p, "fulljitter(100ms, 30s)") }},
		{"unbounded-policy", "bounded only by time", true, func(p *audit.Plan) { retry(p, "fulljitter(100ms, 30s) upto 5s") }},
		{"unbounded-policy", "bounded by time and the least attempt time", false, func(p *audit.Plan) {
			retry(p, "fulljitter(100ms, 30s) upto 5s")
			p.Layers[0].MinAttemptTime = audit.Duration(2 * time.Second)
		}},
		{"unbounded-policy", "bounded by time and a cap", false, func(p *audit.Plan) { retry(p, "fulljitter(100ms, 30s) & times(3) upto 5s") }},

		{"too-many-attempts", "6 attempts", true, func(p *audit.Plan) { retry(p, "fulljitter(100ms, 1s) & times(6)") }},
		{"too-many-attempts", "11 attempts of at least 1s in 10s", true, func(p *audit.Plan) {
			retry(p, "fulljitter(100ms, 1s) upto 10s")
			p.Layers[0].MinAttemptTime = audit.Duration(time.Second)
			p.Layers[0].AttemptTimeout = audit.Duration(time.Second)
			p.Deadline = audit.Duration(time.Minute)
		}},
		{"too-many-attempts", "5 attempts", false, func(p *audit.Plan) { retry(p, "fulljitter(100ms, 1s) & times(5)") }},

		{"no-jitter", "exponential without jitter", true, func(p *audit.Plan) { retry(p, "exponential(100ms, 200%, 1s) & times(3)") }},
		{"no-jitter", "constant waits", true, func(p *audit.Plan) { retry(p, "spaced(500ms) & times(3)") }},
		{"no-jitter", "no waits", true, func(p *audit.Plan) { retry(p, "times(3)") }},
		{"no-jitter", "jitter over no waits", true, func(p *audit.Plan) { retry(p, "Jittered(Times(3), 0%, 100%)") }},
		{"no-jitter", "decorrelated jitter", false, func(p *audit.Plan) { retry(p, "decorrelated(100ms, 1s) & times(3)") }},
		{"no-jitter", "no retries", false, func(p *audit.Plan) { retry(p, "exponential(100ms, 200%, 1s) & times(1)") }},

		{"equal-jitter", "backoff's 50–100%", true, func(p *audit.Plan) { retry(p, "backoff(100ms, 1s) & times(3)") }},
		{"equal-jitter", "full jitter", false, func(*audit.Plan) {}},

		{"no-breaker", "no breaker", true, func(p *audit.Plan) { p.Layers[0].Breaker = nil }},
		{"no-breaker", "no breaker, no retries", false, func(p *audit.Plan) { p.Layers[0].Breaker = nil; retry(p, "times(1)") }},

		{"no-slow-call", "slow_call unset", true, func(p *audit.Plan) { p.Layers[0].Breaker.SlowCall = 0 }},
		{"no-slow-call", "slow_rate 100%", true, func(p *audit.Plan) { p.Layers[0].Breaker.SlowRate = 100 }},
		{"no-slow-call", "slow_call above the attempt timeout", true, func(p *audit.Plan) { p.Layers[0].Breaker.SlowCall = audit.Duration(3 * time.Second) }},
		{"no-slow-call", "slow_call equal to the attempt timeout", false, func(p *audit.Plan) { p.Layers[0].Breaker.SlowCall = audit.Duration(2 * time.Second) }},
		{"no-slow-call", "a breaker on a layer that does not retry", true, func(p *audit.Plan) { retry(p, "times(1)"); p.Layers[0].Breaker.SlowCall = 0 }},

		// The loop's worst case: 100ms + 200ms of waiting and 3 attempts of 2s: 6.3s.
		{"breaker-tunnel", "retries rejections past a 1s open time", true, func(p *audit.Plan) { open(p, time.Second) }},
		{"breaker-tunnel", "retries rejections up to exactly the open time", true, func(p *audit.Plan) { open(p, 6300*time.Millisecond) }},
		{"breaker-tunnel", "retries rejections within a 1m open time", false, func(p *audit.Plan) { open(p, time.Minute) }},
		{"breaker-tunnel", "returns on rejection", false, func(p *audit.Plan) {
			p.Layers[0].Breaker.OpenFor = parse.Policy{Schedule: schedule.Spaced{Every: time.Second}}
		}},
		{"breaker-tunnel", "the default open time, 5s", true, func(p *audit.Plan) {
			p.Layers[0].Breaker.RetryOnOpen = true
			p.Layers[0].Breaker.OpenFor = parse.Policy{}
		}},

		{"retry-on-open", "retries rejections within a 1m open time", true, func(p *audit.Plan) { open(p, time.Minute) }},
		{"retry-on-open", "retries rejections past a 1s open time", false, func(p *audit.Plan) { open(p, time.Second) }},
		{"retry-on-open", "returns on rejection", false, func(*audit.Plan) {}},

		{"no-budget", "no budget", true, func(p *audit.Plan) { p.Layers[0].Budget = nil }},
		{"no-budget", "adaptive throttling alone", true, func(p *audit.Plan) { p.Layers[0].Budget = &audit.Budget{Kind: audit.Adaptive} }},
		{"no-budget", "a token bucket", false, func(p *audit.Plan) { p.Layers[0].Budget = &audit.Budget{Kind: audit.TokenBucket} }},
		{"no-budget", "no budget, no retries", false, func(p *audit.Plan) { p.Layers[0].Budget = nil; retry(p, "times(1)") }},

		{"budget-too-high", "a ratio of 11%", true, func(p *audit.Plan) { p.Layers[0].Budget.Percent = 11 }},
		{"budget-too-high", "a token ratio of 0.2", true, func(p *audit.Plan) { p.Layers[0].Budget = &audit.Budget{Kind: audit.TokenBucket, TokenRatio: 0.2} }},
		{"budget-too-high", "a ratio of the default 10%", false, func(p *audit.Plan) { p.Layers[0].Budget.Percent = 0 }},
		{"budget-too-high", "a token ratio of 0.1", false, func(p *audit.Plan) { p.Layers[0].Budget = &audit.Budget{Kind: audit.TokenBucket, TokenRatio: 0.1} }},

		{"no-deadline", "no deadline", true, func(p *audit.Plan) { p.Deadline = 0 }},
		{"no-deadline", "a deadline", false, func(*audit.Plan) {}},

		{"fresh-timeout", "a fresh timeout", true, func(p *audit.Plan) { p.Layers[0].PropagatesDeadline = false }},
		{"fresh-timeout", "a fresh timeout above the deadline", true, func(p *audit.Plan) {
			p.Layers[0].PropagatesDeadline = false
			p.Layers[0].AttemptTimeout = audit.Duration(time.Minute)
			retry(p, "times(1)")
		}},
		{"fresh-timeout", "no timeout at all", true, func(p *audit.Plan) { p.Layers[0].PropagatesDeadline = false; p.Layers[0].AttemptTimeout = 0 }},
		{"fresh-timeout", "the deadline propagated", false, func(*audit.Plan) {}},

		{"retry-exceeds-deadline", "6.3s of retries in 5s", true, func(p *audit.Plan) { p.Deadline = audit.Duration(5 * time.Second) }},
		{"retry-exceeds-deadline", "no attempt timeout", true, func(p *audit.Plan) { p.Layers[0].AttemptTimeout = 0 }},
		{"retry-exceeds-deadline", "an upto budget and one attempt past the deadline", true, func(p *audit.Plan) {
			retry(p, "fulljitter(100ms, 30s) & times(3) upto 9s") // min(6.3s, 9s + 2s) = 6.3s > 6s
			p.Deadline = audit.Duration(6 * time.Second)
		}},
		{"retry-exceeds-deadline", "an upto budget that fits", false, func(p *audit.Plan) {
			retry(p, "fulljitter(100ms, 30s) & times(8) upto 2s") // min(8 × 2s + waits, 2s + 2s) = 4s
			p.Deadline = audit.Duration(4 * time.Second)
		}},
		{"retry-exceeds-deadline", "6.3s of retries in 6.3s", false, func(p *audit.Plan) { p.Deadline = audit.Duration(6300 * time.Millisecond) }},
		{"retry-exceeds-deadline", "no deadline to exceed", false, func(p *audit.Plan) { p.Deadline = 0 }},

		{"non-idempotent-retry", "POST without a key", true, func(p *audit.Plan) { p.Layers[0].Operations[1].IdempotencyKey = false }},
		{"non-idempotent-retry", "POST without a key, not retried", false, func(p *audit.Plan) {
			p.Layers[0].Operations[1].IdempotencyKey = false
			retry(p, "times(1)")
		}},
		{"non-idempotent-retry", "POST with a key", false, func(*audit.Plan) {}},

		{"non-idempotent-hedge", "hedges a POST without a key", true, func(p *audit.Plan) {
			p.Layers[0].Operations[1].IdempotencyKey = false
			retry(p, "times(1)")
			hedge(p, "spaced(50ms) & times(3)")
		}},
		{"non-idempotent-hedge", "hedges a POST with a key", false, func(p *audit.Plan) { hedge(p, "spaced(50ms) & times(3)") }},
		{"non-idempotent-hedge", "a hedge of one copy", false, func(p *audit.Plan) {
			p.Layers[0].Operations[1].IdempotencyKey = false
			retry(p, "times(1)")
			hedge(p, "times(1)")
		}},

		{"hedge-policy", "copies at once", true, func(p *audit.Plan) { hedge(p, "times(2)") }},
		{"hedge-policy", "no bound on copies", true, func(p *audit.Plan) { hedge(p, "spaced(50ms)") }},
		{"hedge-policy", "eight copies", true, func(p *audit.Plan) { hedge(p, "spaced(50ms) & times(8)") }},
		{"hedge-policy", "at the p95", false, func(p *audit.Plan) { hedge(p, "spaced(50ms) & times(3)") }},

		{"retries-4xx", "retries 400 and 409", true, func(p *audit.Plan) { p.Layers[0].RetryOn = []int{400, 409, 503} }},
		{"retries-4xx", "retries 408 and 429", false, func(p *audit.Plan) { p.Layers[0].RetryOn = []int{408, 429, 503} }},

		{"eol-library", "Hystrix", true, func(p *audit.Plan) { p.Layers[0].Library = "Netflix Hystrix 1.5.18" }},
		{"eol-library", "hystrix-go", true, func(p *audit.Plan) { p.Layers[0].Library = "hystrix-go"; retry(p, "times(1)") }},
		{"eol-library", "Resilience4j", false, func(*audit.Plan) {}},
	}
	fired, held := map[string]bool{}, map[string]bool{}
	for _, tt := range tests {
		p := passing()
		tt.change(&p)
		if err := p.Validate(); err != nil {
			t.Fatalf("%s / %s: the plan is invalid: %v", tt.rule, tt.name, err)
		}
		r := audit.Run(p)
		var ids []string
		for _, f := range r.Findings {
			ids = append(ids, f.ID)
		}
		if got := slices.Contains(ids, tt.rule); got != tt.fires {
			t.Errorf("%s / %s: fired = %v; want %v; findings:\n%s", tt.rule, tt.name, got, tt.fires, r)
		}
		if tt.fires {
			fired[tt.rule] = true
		} else {
			held[tt.rule] = true
		}
	}
	for _, r := range audit.Rules() {
		if !fired[r.ID] || !held[r.ID] {
			t.Errorf("rule %s: a row that fires: %v, a row that holds back: %v; want both", r.ID, fired[r.ID], held[r.ID])
		}
	}
}

func TestRulesAreDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range audit.Rules() {
		if seen[r.ID] {
			t.Errorf("rule %s listed twice", r.ID)
		}
		seen[r.ID] = true
		if r.Summary == "" {
			t.Errorf("rule %s has no summary", r.ID)
		}
	}
}

func TestInvalidPlan(t *testing.T) {
	p := passing()
	p.Layers = append(p.Layers, audit.Layer{}, audit.Layer{Name: "checkout", MinAttemptTime: audit.Duration(time.Second), AttemptTimeout: audit.Duration(time.Millisecond)})
	p.Layers[0].RetryOn = []int{99}
	p.Layers[0].Retry = parse.Policy{Schedule: schedule.Times{}}
	p.Layers[0].Breaker.FailureRate = 150
	p.Layers[0].Budget = &audit.Budget{Kind: audit.Ratio, TokenRatio: 0.1}
	p.Layers[0].Operations = append(p.Layers[0].Operations, audit.Operation{})
	want := []audit.Finding{
		{ID: "invalid-plan", Severity: audit.Error, Layer: "checkout", Message: "retry: Times: n 0 is below 1"},
		{ID: "invalid-plan", Severity: audit.Error, Layer: "checkout", Message: "retry_on: 99 is not an HTTP status code"},
		{ID: "invalid-plan", Severity: audit.Error, Layer: "checkout", Message: "breaker: Config.FailureRate = 150 is above 100 (percent)"},
		{ID: "invalid-plan", Severity: audit.Error, Layer: "checkout", Message: "budget: token_ratio does not apply to kind ratio"},
		{ID: "invalid-plan", Severity: audit.Error, Layer: "checkout", Message: "operations[2] has no name"},
		{ID: "invalid-plan", Severity: audit.Error, Layer: "layers[1]", Message: "has no name"},
		{ID: "invalid-plan", Severity: audit.Error, Layer: "checkout", Message: "the name is used by an earlier layer too"},
		{ID: "invalid-plan", Severity: audit.Error, Layer: "checkout", Message: "min_attempt_time 1s is above attempt_timeout 1ms"},
	}
	r := audit.Run(p)
	if diff := cmp.Diff(want, r.Findings); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	if r.Pass || r.Score != 0 || len(r.Recommendations) != 1 {
		t.Errorf("pass %v, score %d, %d recommendations; want false, 0, 1", r.Pass, r.Score, len(r.Recommendations))
	}
	err := p.Validate()
	if err == nil || !strings.Contains(err.Error(), "layer checkout: breaker: Config.FailureRate = 150 is above 100 (percent)") {
		t.Errorf("Validate() = %v; want the breaker's problem among others", err)
	}
	for _, bad := range []audit.Plan{{}, {Layers: []audit.Layer{{Name: "a", Budget: &audit.Budget{Kind: "leaky"}}}}} {
		if r := audit.Run(bad); r.Pass || len(r.Findings) != 1 || r.Findings[0].ID != "invalid-plan" {
			t.Errorf("Run(%+v) = %+v; want one invalid-plan finding", bad, r)
		}
	}
}

func TestScoreAndOrder(t *testing.T) {
	p := passing()
	p.Layers[0].Retry = parse.Policy{Schedule: schedule.Intersect{A: schedule.Backoff(100*time.Millisecond, time.Second), B: schedule.Times{N: 3}}} // info
	p.Layers[0].Breaker.SlowCall = 0                                                                                                                // warning
	p.Layers[0].Library = "hystrix"                                                                                                                 // error
	p.Deadline = 0                                                                                                                                  // error, plan-wide
	r := audit.Run(p)
	var got []string
	for _, f := range r.Findings {
		got = append(got, f.Severity.String()+" "+f.ID+" "+f.Layer)
	}
	want := []string{"error no-deadline ", "error eol-library checkout", "warning no-slow-call checkout", "info equal-jitter checkout"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if r.Pass || r.Score != 100-2*audit.ErrorPenalty-audit.WarningPenalty-audit.InfoPenalty {
		t.Errorf("pass %v, score %d; want false, %d", r.Pass, r.Score, 100-2*audit.ErrorPenalty-audit.WarningPenalty-audit.InfoPenalty)
	}
	p = passing()
	p.Layers[0].Breaker.SlowCall = 0
	if r := audit.Run(p); !r.Pass || r.Score != 100-audit.WarningPenalty {
		t.Errorf("a warning alone: pass %v, score %d; want true, %d", r.Pass, r.Score, 100-audit.WarningPenalty)
	}
}

func TestTooManyLayers(t *testing.T) {
	p := passing()
	for len(p.Layers) <= audit.MaxLayers {
		p.Layers = append(p.Layers, p.Layers[0])
	}
	want := []audit.Finding{{ID: "invalid-plan", Severity: audit.Error, Message: "the plan has 65 layers; at most 64 are audited"}}
	if diff := cmp.Diff(want, audit.Run(p).Findings); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}
