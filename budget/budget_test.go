package budget_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/verdict"
)

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		c    budget.Config
		want string
	}{
		{budget.TokenBucketConfig{MaxTokens: -1}, "MaxTokens = -1"},
		{budget.TokenBucketConfig{MaxTokens: 1001}, "MaxTokens = 1001"},
		{budget.TokenBucketConfig{TokenRatio: -0.1}, "TokenRatio = -0.1"},
		{budget.TokenBucketConfig{TokenRatio: 0.0004}, "TokenRatio = 0.0004"},
		{budget.TokenBucketConfig{TokenRatio: 0.0009}, "TokenRatio = 0.0009"}, // truncates to 0
		{budget.TokenBucketConfig{TokenRatio: math.Inf(1)}, "TokenRatio = +Inf"},
		{budget.TokenBucketConfig{TokenRatio: math.MaxFloat64}, "TokenRatio = 1.7976931348623157e+308"},
		{budget.TokenBucketConfig{TokenRatio: math.NaN()}, "TokenRatio = NaN"},
		{budget.TokenBucketConfig{MaxTokens: 2, TokenRatio: 3}, "TokenRatio = 3"},
		{budget.RatioConfig{Percent: -5}, "Percent = -5"},
		{budget.RatioConfig{Percent: 1001}, "Percent = 1001"},
		{budget.RatioConfig{Window: 5}, "Window = 5ns"},
		{budget.AdaptiveConfig{K: 0.5}, "K = 0.5"},
		{budget.AdaptiveConfig{K: math.NaN()}, "K = NaN"},
		{budget.AdaptiveConfig{K: math.Inf(1)}, "K = +Inf"},
		{budget.AdaptiveConfig{Window: -time.Second}, "Window = -1s"},
	}
	for _, tt := range tests {
		b, err := tt.c.New()
		if err == nil || !strings.Contains(err.Error(), tt.want) || b != nil {
			t.Errorf("%T%+v.New() = %v, %v; want an error containing %q", tt.c, tt.c, b, err, tt.want)
		}
		if _, err := budget.NewRegistry(tt.c, 0); err == nil {
			t.Errorf("NewRegistry(%+v) accepted a bad config", tt.c)
		}
	}
	for _, c := range []budget.Config{budget.TokenBucketConfig{}, budget.RatioConfig{}, budget.AdaptiveConfig{}} {
		if _, err := c.New(); err != nil {
			t.Errorf("%T{}.New() = %v", c, err)
		}
	}
	if _, err := budget.NewRegistry(nil, 0); err == nil {
		t.Error("NewRegistry(nil) succeeded")
	}
	if _, err := budget.NewRegistry(budget.TokenBucketConfig{}, -1); err == nil {
		t.Error("NewRegistry with a negative cap succeeded")
	}
}

func TestTokenBucket(t *testing.T) {
	b, err := budget.NewTokenBucket(budget.TokenBucketConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	step := func(v verdict.Verdict) {
		b.Record(v)
		s := "tokens " + fmtTokens(b.Tokens())
		if b.AllowRetry() {
			s += " retry"
		} else {
			s += " no retry"
		}
		got = append(got, s)
	}
	for range 5 {
		step(verdict.Transient)
	}
	step(verdict.Retryable) // pushback costs a token too
	step(verdict.Neutral)   // nothing
	for range 9 {
		step(verdict.Success)
	}
	step(verdict.Success)
	want := []string{
		"tokens 9 retry", "tokens 8 retry", "tokens 7 retry", "tokens 6 retry", "tokens 5 no retry",
		"tokens 4 no retry", "tokens 4 no retry",
		"tokens 4.1 no retry", "tokens 4.2 no retry", "tokens 4.3 no retry", "tokens 4.4 no retry", "tokens 4.5 no retry",
		"tokens 4.6 no retry", "tokens 4.7 no retry", "tokens 4.8 no retry", "tokens 4.9 no retry",
		"tokens 5 no retry",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	b.Record(verdict.Success)
	if !b.AllowRetry() || b.Tokens() != 5.1 {
		t.Errorf("at 5.1 tokens: AllowRetry false or tokens %v", b.Tokens())
	}
	if diff := cmp.Diff(budget.Stats{Retries: 5, Throttled: 13, Tokens: 5.1}, b.Stats()); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
}

// gRFC A6: "token_ratio ... will be parsed as float with up to three
// decimal places; values beyond that will be truncated (e.g. 0.5466 is
// treated as 0.546)". Each ratio is earned back by one success after one
// failure from full (10 → 9 → 9 + ratio).
func TestTokenRatioTruncatedAsA6Says(t *testing.T) {
	var got []string
	for _, ratio := range []float64{0.5466, 0.0019, 0.001, 0.1, 0.29, 0.3, 0.9999, 0.123456789} {
		b, err := budget.NewTokenBucket(budget.TokenBucketConfig{TokenRatio: ratio})
		if err != nil {
			t.Fatalf("TokenRatio %v: %v", ratio, err)
		}
		b.Record(verdict.Failure)
		b.Record(verdict.Success)
		got = append(got, fmtTokens(b.Tokens()))
	}
	want := []string{"9.546", "9.001", "9.001", "9.1", "9.29", "9.3", "9.999", "9.123"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tokens after a failure and a success (-want +got):\n%s", diff)
	}
}

// Config fields whose product or conversion would overflow are clamped
// or rejected, never wrapped: a floor of MaxInt retries a second allows
// every retry, over any window.
func TestConfigOverflow(t *testing.T) {
	for _, w := range []time.Duration{0, time.Second, math.MaxInt64} {
		clock := clockcap.Virtual(epoch)
		r, err := budget.NewRatio(budget.RatioConfig{MinPerSecond: math.MaxInt, Window: w, Clock: clock})
		if err != nil {
			t.Fatalf("Window %v: %v", w, err)
		}
		allowed := 0
		for range 1000 {
			if r.AllowRetry() {
				allowed++
			}
		}
		if allowed != 1000 {
			t.Errorf("MinPerSecond = MaxInt, Window %v: %d of 1000 retries allowed; want all", w, allowed)
		}
	}
	// The largest K and Window still throttle a dead target.
	clock := clockcap.Virtual(epoch)
	a, err := budget.NewAdaptive(budget.AdaptiveConfig{K: math.MaxFloat64, Window: math.MaxInt64, Clock: clock, Random: randcap.Seeded(1)})
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		if a.Request() {
			a.Record(verdict.Failure)
		}
	}
	if p := a.Probability(); !(p > 0.5 && p < 1) {
		t.Errorf("K = MaxFloat64 after 100 failures: probability %v; want in (0.5, 1)", p)
	}
}

func TestTokenBucketBounds(t *testing.T) {
	b, _ := budget.NewTokenBucket(budget.TokenBucketConfig{MaxTokens: 3, TokenRatio: 0.5})
	for range 10 {
		b.Record(verdict.Failure)
	}
	if b.Tokens() != 0 {
		t.Errorf("tokens after 10 failures = %v; want 0", b.Tokens())
	}
	for range 10 {
		b.Record(verdict.Success)
	}
	if b.Tokens() != 3 {
		t.Errorf("tokens after 10 successes = %v; want 3", b.Tokens())
	}
	b.Record(verdict.Failure)
	b.Record(verdict.Failure) // 1 left, half is 1.5
	if b.AllowRetry() {
		t.Error("retry allowed at 1 of 3 tokens")
	}
}

func TestRatio(t *testing.T) {
	clock := clockcap.Virtual(epoch)
	// Exact: this test is about the rule, not about where a batch of
	// calls made in a burst after a quiet spell lands in the window.
	r, err := budget.NewRatio(budget.RatioConfig{Percent: 10, MinPerSecond: -1, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	budget.Exact(r)
	if r.AllowRetry() {
		t.Error("a retry allowed with no calls and no floor")
	}
	for range 25 {
		r.Request()
	}
	got := []bool{r.AllowRetry(), r.AllowRetry(), r.AllowRetry()}
	if diff := cmp.Diff([]bool{true, true, false}, got); diff != "" {
		t.Errorf("25 calls at 10%%: retries (-want +got):\n%s", diff)
	}
	clock.Advance(10 * time.Second) // the window forgets
	for range 10 {
		r.Request()
	}
	got = []bool{r.AllowRetry(), r.AllowRetry()}
	if diff := cmp.Diff([]bool{true, false}, got); diff != "" {
		t.Errorf("10 new calls: retries (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(budget.Stats{Requests: 35, Retries: 3, Throttled: 3}, r.Stats()); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
}

func TestRatioFloor(t *testing.T) {
	clock := clockcap.Virtual(epoch)
	r, _ := budget.NewRatio(budget.RatioConfig{Clock: clock}) // 1 a second over 10 s
	allowed := 0
	for range 30 {
		if r.AllowRetry() {
			allowed++
		}
	}
	if allowed != 10 {
		t.Errorf("a quiet client got %d retries; want the floor of 10", allowed)
	}
}

func TestAdaptive(t *testing.T) {
	clock := clockcap.Virtual(epoch)
	a, err := budget.NewAdaptive(budget.AdaptiveConfig{Clock: clock, Random: randcap.Seeded(7)})
	if err != nil {
		t.Fatal(err)
	}
	// Healthy: every call accepted, nothing refused.
	for range 100 {
		if !a.Request() {
			t.Fatal("a healthy throttle refused a call")
		}
		a.Record(verdict.Success)
	}
	if p := a.Probability(); p != 0 {
		t.Errorf("healthy probability = %v", p)
	}
	// The target refuses everything: 100 accepts allow 100 failures
	// (answered ≤ 2·accepts), then the throttle lets the c-th call
	// through with probability (2·100 + 8)/(c + 8), about
	// 208·ln(1108/208) ≈ 348 more of the remaining 900.
	sent := 0
	for range 1000 {
		if a.Request() {
			sent++
			a.Record(verdict.Retryable)
		}
	}
	p := a.Probability()
	if want := (1100 - 2*100.0) / 1108; math.Abs(p-want) > 1e-9 {
		t.Errorf("probability after 1100 calls, 100 accepts = %v; want %v", p, want)
	}
	if sent < 400 || sent > 480 {
		t.Errorf("sent %d of 1000 calls to a dead target; want about 100 + 348", sent)
	}
	// Two minutes later the history is gone.
	clock.Advance(2 * time.Minute)
	if p := a.Probability(); p != 0 {
		t.Errorf("probability after the window = %v; want 0", p)
	}
	st := a.Stats()
	if st.Requests != 1100 || st.Refused != uint64(1000-sent) {
		t.Errorf("Stats = %+v; want 1100 requests, %d refused", st, 1000-sent)
	}
}

func fmtTokens(f float64) string {
	return strings.TrimRight(strings.TrimRight(strconvFormat(f), "0"), ".")
}
