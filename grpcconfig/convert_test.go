package grpcconfig

import (
	"errors"
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
	"pgregory.net/rapid"
)

// a6Ceiling is gRFC A6's ceiling of the n-th retry's wait, from n = 1,
// computed exactly: min(initialBackoff·multiplier^(n−1), maxBackoff) in
// nanoseconds, for a multiplier of pct/100.
func a6Ceiling(initial, maxBackoff time.Duration, pct, n int) *big.Rat {
	c := new(big.Rat).SetInt64(int64(initial))
	m := big.NewRat(int64(pct), 100)
	for range n - 1 {
		c.Mul(c, m)
	}
	if c.Cmp(new(big.Rat).SetInt64(int64(maxBackoff))) > 0 {
		c.SetInt64(int64(maxBackoff))
	}
	return c
}

// ceilings returns the un-jittered waits of a converted schedule: the
// delays of its Exponential, as many as its Times allows retries. It
// fails the test if s does not have the shape Schedule promises.
func ceilings(t interface {
	Helper()
	Fatalf(format string, args ...any)
}, s schedule.Schedule, low, high int) []time.Duration {
	t.Helper()
	in, ok := s.(schedule.Intersect)
	if !ok {
		t.Fatalf("%v is not an Intersect", s)
	}
	jit, ok := in.A.(schedule.Jittered)
	if !ok || jit.LowPct != low || jit.HighPct != high {
		t.Fatalf("%v: want Jittered(…, %d%%, %d%%) first", s, low, high)
	}
	exp, ok := jit.Inner.(schedule.Exponential)
	if !ok {
		t.Fatalf("%v: the jitter is not around an Exponential", s)
	}
	times, ok := in.B.(schedule.Times)
	if !ok {
		t.Fatalf("%v: the second operand is not a Times", s)
	}
	return slices.Collect(interp.Delays(schedule.Intersect{A: exp, B: times}, 0))
}

func TestScheduleShape(t *testing.T) {
	tests := []struct {
		p    RetryPolicy
		j    Jitter
		want string
	}{
		{RetryPolicy{MaxAttempts: 4, InitialBackoff: 100 * time.Millisecond, MaxBackoff: time.Second, BackoffMultiplier: 2, RetryableStatusCodes: []Code{Unavailable}},
			FullJitter, "Intersect(Jittered(Exponential(100ms, 200%, 1s), 0%, 100%), Times(4))"},
		{RetryPolicy{MaxAttempts: 4, InitialBackoff: 100 * time.Millisecond, MaxBackoff: time.Second, BackoffMultiplier: 2, RetryableStatusCodes: []Code{Unavailable}},
			PlusMinus20, "Intersect(Jittered(Exponential(100ms, 200%, 1s), 80%, 120%), Times(4))"},
		{RetryPolicy{MaxAttempts: 9, InitialBackoff: 250 * time.Millisecond, MaxBackoff: 30 * time.Second, BackoffMultiplier: 1.5, RetryableStatusCodes: []Code{Unavailable}},
			FullJitter, "Intersect(Jittered(Exponential(250ms, 150%, 30s), 0%, 100%), Times(5))"},
		{RetryPolicy{MaxAttempts: 2, InitialBackoff: time.Second, MaxBackoff: 10 * time.Millisecond, BackoffMultiplier: 1, RetryableStatusCodes: []Code{Unavailable}},
			FullJitter, "Intersect(Jittered(Exponential(1s, 100%, 10ms), 0%, 100%), Times(2))"},
		{RetryPolicy{MaxAttempts: 3, InitialBackoff: time.Second, MaxBackoff: time.Minute, BackoffMultiplier: 1.1, RetryableStatusCodes: []Code{Unavailable}},
			FullJitter, "Intersect(Jittered(Exponential(1s, 110%, 1m0s), 0%, 100%), Times(3))"},
		{RetryPolicy{MaxAttempts: 3, InitialBackoff: time.Second, MaxBackoff: time.Minute, BackoffMultiplier: 1.555, RetryableStatusCodes: []Code{Unavailable}},
			FullJitter, "Intersect(Jittered(Exponential(1s, 155.5%, 1m0s), 0%, 100%), Times(3))"}, // exact: a fraction of a percent is held
	}
	for _, tt := range tests {
		s, err := tt.p.Schedule(tt.j)
		if err != nil {
			t.Errorf("%+v.Schedule(%v): %v", tt.p, tt.j, err)
			continue
		}
		if got := s.String(); got != tt.want {
			t.Errorf("%+v.Schedule(%v) = %s; want %s", tt.p, tt.j, got, tt.want)
		}
		if err := schedule.Validate(s); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
}

func TestScheduleErrors(t *testing.T) {
	ok := RetryPolicy{MaxAttempts: 3, InitialBackoff: time.Second, MaxBackoff: time.Minute, BackoffMultiplier: 2, RetryableStatusCodes: []Code{Unavailable}}
	with := func(f func(*RetryPolicy)) RetryPolicy { p := ok; f(&p); return p }
	tests := []struct {
		p    RetryPolicy
		j    Jitter
		want string
	}{
		{with(func(p *RetryPolicy) { p.BackoffMultiplier = 0.5 }), FullJitter,
			"grpcconfig: backoffMultiplier is 0.5, below 1: A6 then shrinks the waits, and no schedule does that (Exponential only grows)"},
		{with(func(p *RetryPolicy) { p.BackoffMultiplier = 2e6 }), FullJitter,
			"grpcconfig: backoffMultiplier is 2e+06, above the largest convertible, 1000000"},
		{with(func(p *RetryPolicy) { p.BackoffMultiplier = math.NaN() }), FullJitter,
			"grpcconfig: backoffMultiplier must be a positive number; got NaN"},
		{with(func(p *RetryPolicy) { p.BackoffMultiplier = math.Inf(1) }), FullJitter,
			"grpcconfig: backoffMultiplier must be a positive number; got +Inf"},
		{with(func(p *RetryPolicy) { p.MaxAttempts = 1 }), FullJitter,
			"grpcconfig: maxAttempts must be at least 2; got 1"},
		{with(func(p *RetryPolicy) { p.RetryableStatusCodes = []Code{Unavailable, 40} }), FullJitter,
			"grpcconfig: retryableStatusCodes[1] is CODE(40), which gRPC does not define"},
		{ok, Jitter(7), "grpcconfig: unknown jitter(7)"},
	}
	for _, tt := range tests {
		s, err := tt.p.Schedule(tt.j)
		if err == nil {
			t.Errorf("%+v.Schedule(%v) = %v; want an error", tt.p, tt.j, s)
			continue
		}
		if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
			t.Errorf("%+v.Schedule(%v) error (-want +got):\n%s", tt.p, tt.j, diff)
		}
	}
}

func TestNotes(t *testing.T) {
	p := RetryPolicy{MaxAttempts: 7, InitialBackoff: time.Second, MaxBackoff: time.Minute, BackoffMultiplier: 1.0000005, RetryableStatusCodes: []Code{Unavailable}}
	want := []string{
		"maxAttempts 7 is treated as 5, as gRFC A6 requires",
		"backoffMultiplier 1.0000005 is not a whole millionth: the schedule grows by 100.0001% instead, so its waits differ slightly from A6's",
	}
	if diff := cmp.Diff(want, p.Notes()); diff != "" {
		t.Errorf("Notes (-want +got):\n%s", diff)
	}
	p.MaxAttempts, p.BackoffMultiplier = 5, 1.1 // 1.1·100 is 110.00000000000001 in floating point: still a whole percent
	if got := p.Notes(); len(got) != 0 {
		t.Errorf("Notes of an exact policy = %q", got)
	}
}

// TestA6CeilingsExact checks the un-jittered waits of converted policies
// against A6's formula computed exactly, to the nanosecond.
func TestA6CeilingsExact(t *testing.T) {
	tests := []struct {
		initial, max time.Duration
		pct, n       int
		want         []time.Duration
	}{
		{100 * time.Millisecond, time.Second, 200, 5, []time.Duration{100e6, 200e6, 400e6, 800e6}},
		{100 * time.Millisecond, 300 * time.Millisecond, 200, 5, []time.Duration{100e6, 200e6, 300e6, 300e6}},
		{250 * time.Millisecond, 30 * time.Second, 150, 9, []time.Duration{250e6, 375e6, 562.5e6, 843.75e6}},
		{time.Second, 10 * time.Millisecond, 300, 3, []time.Duration{10e6, 10e6}},
		{7 * time.Millisecond, time.Hour, 133, 4, []time.Duration{7e6, 9.31e6, 12.3823e6}},
	}
	for _, tt := range tests {
		p := RetryPolicy{MaxAttempts: tt.n, InitialBackoff: tt.initial, MaxBackoff: tt.max, BackoffMultiplier: float64(tt.pct) / 100, RetryableStatusCodes: []Code{Unavailable}}
		s, err := p.Schedule(FullJitter)
		if err != nil {
			t.Fatal(err)
		}
		got := ceilings(t, s, 0, 100)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: ceilings (-want +got):\n%s", s, diff)
		}
		for i, d := range got {
			if c := a6Ceiling(tt.initial, tt.max, tt.pct, i+1); c.Cmp(new(big.Rat).SetInt64(int64(d))) != 0 {
				t.Errorf("%s: retry %d: ceiling %v; A6 says %s ns", s, i+1, d, c.FloatString(3))
			}
		}
	}
}

// TestPropA6CeilingsExact: for an initialBackoff of whole milliseconds,
// every ceiling A6 allows (at most 4 retries) is A6's to the nanosecond:
// 1 ms is 100³ ns, so three multiplications by a whole percent stay whole.
func TestPropA6CeilingsExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p, pct := drawPolicy(t, time.Millisecond)
		for _, j := range []Jitter{FullJitter, PlusMinus20} {
			s, err := p.Schedule(j)
			if err != nil {
				t.Fatalf("%+v: %v", p, err)
			}
			low, high, _ := j.bounds()
			got := ceilings(t, s, low, high)
			if len(got) != min(p.MaxAttempts, 5)-1 {
				t.Fatalf("%s: %d retries; maxAttempts %d allows %d", s, len(got), p.MaxAttempts, min(p.MaxAttempts, 5)-1)
			}
			for i, d := range got {
				c := a6Ceiling(p.InitialBackoff, p.MaxBackoff, pct, i+1)
				if c.Cmp(new(big.Rat).SetInt64(int64(d))) != 0 {
					t.Fatalf("%s: retry %d: ceiling %v; A6 says %s ns", s, i+1, d, c.FloatString(3))
				}
			}
		}
	})
}

// TestPropA6CeilingsAnyNanos: for any initialBackoff the ceilings are
// never above A6's, and below by less than the rounding of integer
// nanoseconds can add up to: e₁ = 0, eₖ₊₁ = eₖ·multiplier + 1.
func TestPropA6CeilingsAnyNanos(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p, pct := drawPolicy(t, time.Nanosecond)
		s, err := p.Schedule(FullJitter)
		if err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		slack := new(big.Rat)
		for i, d := range ceilings(t, s, 0, 100) {
			c := a6Ceiling(p.InitialBackoff, p.MaxBackoff, pct, i+1)
			diff := new(big.Rat).Sub(c, new(big.Rat).SetInt64(int64(d)))
			if diff.Sign() < 0 || diff.Cmp(slack) > 0 {
				t.Fatalf("%s: retry %d: ceiling %d ns; A6 says %s ns: off by %s, allowed [0, %s]",
					s, i+1, d, c.FloatString(3), diff.FloatString(3), slack.FloatString(3))
			}
			slack.Add(slack.Mul(slack, big.NewRat(int64(pct), 100)), big.NewRat(1, 1))
		}
	})
}

// drawPolicy draws a valid policy with a whole-percent multiplier and an
// initialBackoff that is a multiple of unit.
func drawPolicy(t *rapid.T, unit time.Duration) (RetryPolicy, int) {
	pct := rapid.IntRange(100, 1000).Draw(t, "pct")
	p := RetryPolicy{
		MaxAttempts:          rapid.IntRange(2, 9).Draw(t, "maxAttempts"),
		InitialBackoff:       unit * time.Duration(rapid.Int64Range(1, int64(10*time.Second/unit)).Draw(t, "initial")),
		MaxBackoff:           time.Duration(rapid.Int64Range(1, int64(10*time.Minute)).Draw(t, "max")),
		BackoffMultiplier:    float64(pct) / 100,
		RetryableStatusCodes: []Code{Unavailable},
	}
	return p, pct
}

// TestA6FullJitterDistribution checks the jittered waits against A6's
// formula as first published: the n-th retry waits U(0, cₙ). Over 4000
// seeds, every wait of retry n lies in [0, cₙ), the waits pass a
// Kolmogorov–Smirnov test against that uniform distribution, and the
// waits of consecutive retries are uncorrelated, as A6's independent
// draws are.
func TestA6FullJitterDistribution(t *testing.T) {
	for _, p := range []RetryPolicy{
		{MaxAttempts: 5, InitialBackoff: 100 * time.Millisecond, MaxBackoff: time.Second, BackoffMultiplier: 2, RetryableStatusCodes: []Code{Unavailable}},
		{MaxAttempts: 7, InitialBackoff: 40 * time.Millisecond, MaxBackoff: 100 * time.Millisecond, BackoffMultiplier: 1.5, RetryableStatusCodes: []Code{Unavailable}},
	} {
		checkDistribution(t, p, FullJitter, 0, 1)
	}
}

// TestA6PlusMinus20Distribution does the same for A6 as revised: the n-th
// retry waits cₙ·U(0.8, 1.2).
func TestA6PlusMinus20Distribution(t *testing.T) {
	p := RetryPolicy{MaxAttempts: 5, InitialBackoff: 100 * time.Millisecond, MaxBackoff: time.Second, BackoffMultiplier: 2, RetryableStatusCodes: []Code{Unavailable}}
	checkDistribution(t, p, PlusMinus20, 0.8, 1.2)
}

func checkDistribution(t *testing.T, p RetryPolicy, j Jitter, lo, hi float64) {
	t.Helper()
	const seeds = 4000
	s, err := p.Schedule(j)
	if err != nil {
		t.Fatal(err)
	}
	retries := p.Attempts() - 1
	// u[n][k] is seed k's wait before retry n+1, as a fraction of A6's ceiling.
	u := make([][]float64, retries)
	for seed := range uint64(seeds) {
		waits := slices.Collect(interp.Delays(s, seed+1))
		if len(waits) != retries {
			t.Fatalf("%s seed %d: %d retries; want %d", s, seed+1, len(waits), retries)
		}
		for n, w := range waits {
			c, _ := a6Ceiling(p.InitialBackoff, p.MaxBackoff, int(math.Round(p.BackoffMultiplier*100)), n+1).Float64()
			f := float64(w) / c
			if f < lo-1e-9 || f >= hi {
				t.Fatalf("%s seed %d: retry %d waits %v, outside [%v, %v)·%v", s, seed+1, n+1, w, lo, hi, time.Duration(c))
			}
			u[n] = append(u[n], (f-lo)/(hi-lo))
		}
	}
	// Critical value of the one-sample KS statistic at α = 0.001.
	crit := 1.95 / math.Sqrt(seeds)
	for n, xs := range u {
		if d := ksUniform(xs); d > crit {
			t.Errorf("%s: retry %d: KS distance %.4f from A6's U(%v, %v)·cₙ exceeds %.4f", s, n+1, d, lo, hi, crit)
		}
		if n > 0 {
			if r := correlation(u[n-1], xs); math.Abs(r) > 4/math.Sqrt(seeds) {
				t.Errorf("%s: retries %d and %d correlate: r = %.4f", s, n, n+1, r)
			}
		}
	}
}

// ksUniform returns the Kolmogorov–Smirnov distance between the sample
// and U(0, 1).
func ksUniform(xs []float64) float64 {
	xs = slices.Sorted(slices.Values(xs))
	n := float64(len(xs))
	var d float64
	for i, x := range xs {
		d = max(d, float64(i+1)/n-x, x-float64(i)/n)
	}
	return d
}

func correlation(a, b []float64) float64 {
	n := float64(len(a))
	var sa, sb, saa, sbb, sab float64
	for i := range a {
		sa, sb = sa+a[i], sb+b[i]
		saa, sbb, sab = saa+a[i]*a[i], sbb+b[i]*b[i], sab+a[i]*b[i]
	}
	return (sab/n - sa/n*sb/n) / math.Sqrt((saa/n-sa*sa/n/n)*(sbb/n-sb*sb/n/n))
}

// TestKSDetects makes sure the distribution check can fail: waits of
// U(0, cₙ/2) — what the backoff(…) helper's 50–100% would look
// like halved — are far from A6's.
func TestKSDetects(t *testing.T) {
	xs := make([]float64, 4000)
	for i := range xs {
		xs[i] = float64(i) / 8000
	}
	if d := ksUniform(xs); d < 0.4 {
		t.Errorf("KS distance of U(0, 0.5) from U(0, 1) = %v; want about 0.5", d)
	}
}

func TestFromSchedule(t *testing.T) {
	tests := []struct {
		src  string
		want RetryPolicy
		j    Jitter
	}{
		{"fulljitter(100ms, 1s) & times(4)",
			RetryPolicy{MaxAttempts: 4, InitialBackoff: 100 * time.Millisecond, MaxBackoff: time.Second, BackoffMultiplier: 2, RetryableStatusCodes: []Code{Unavailable}}, FullJitter},
		{"times(5) & jittered(exponential(250ms, 150%, 30s), 80%, 120%)",
			RetryPolicy{MaxAttempts: 5, InitialBackoff: 250 * time.Millisecond, MaxBackoff: 30 * time.Second, BackoffMultiplier: 1.5, RetryableStatusCodes: []Code{Unavailable}}, PlusMinus20},
	}
	for _, tt := range tests {
		s, err := parse.Parse(tt.src)
		if err != nil {
			t.Fatal(err)
		}
		got, j, err := FromSchedule(s)
		if err != nil {
			t.Errorf("FromSchedule(%s): %v", s, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" || j != tt.j {
			t.Errorf("FromSchedule(%s) = …, %v; want %v (-want +got):\n%s", s, j, tt.j, diff)
		}
	}
}

func TestFromScheduleNoEquivalent(t *testing.T) {
	tests := map[string]string{
		"backoff(100ms, 1s) & times(4)":                            "jitter 50–100% is neither of A6's formulas",
		"fulljitter(100ms, 1s) & times(8)":                         "Times(8) allows more attempts than A6's cap of 5",
		"fulljitter(100ms, 1s) & times(1)":                         "Times(1) makes no retry",
		"fulljitter(100ms, 1s)":                                    "not an Intersect",
		"fulljitter(100ms, 1s) & spaced(1s)":                       "neither side of the Intersect is a Times",
		"exponential(100ms, 200%, 1s) & times(3)":                  "is not a Jittered Exponential",
		"jittered(fibonacci(1s), 0%, 100%) & times(3)":             "not an Exponential",
		"fulljitter(100ms, 1s) & times(3) upto 10s":                "not an Intersect",
		"(fulljitter(100ms, 1s) & times(3)) & times(4)":            "is not a Jittered Exponential",
		"times(3) then (fulljitter(100ms, 1s) & times(3))":         "not an Intersect",
		"jittered(exponential(1s, 200%, 1m), 0%, 100%) | times(3)": "not an Intersect",
	}
	for src, want := range tests {
		s, err := parse.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = FromSchedule(s)
		if !errors.Is(err, ErrNoEquivalent) || !strings.Contains(err.Error(), want) {
			t.Errorf("FromSchedule(%s) error = %v; want ErrNoEquivalent saying %q", s, err, want)
		}
	}
	if _, _, err := FromSchedule(schedule.Times{N: 0}); err == nil || errors.Is(err, ErrNoEquivalent) {
		t.Errorf("FromSchedule(Times(0)) = %v; want a validation error", err)
	}
}

// TestPropRoundTrip: Schedule and FromSchedule are inverses on the
// policies with a whole-percent multiplier and at most 5 attempts.
func TestPropRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p, _ := drawPolicy(t, time.Nanosecond)
		p.MaxAttempts = min(p.MaxAttempts, 5)
		j := Jitter(rapid.IntRange(0, 1).Draw(t, "jitter"))
		s, err := p.Schedule(j)
		if err != nil {
			t.Fatal(err)
		}
		back, bj, err := FromSchedule(s)
		if err != nil {
			t.Fatalf("FromSchedule(%s): %v", s, err)
		}
		if diff := cmp.Diff(p, back); diff != "" || bj != j {
			t.Fatalf("FromSchedule(%s) = …, %v; want %v (-want +got):\n%s", s, bj, j, diff)
		}
		again, err := back.Schedule(bj)
		if err != nil || again != s {
			t.Fatalf("Schedule(FromSchedule(%s)) = %v, %v", s, again, err)
		}
		b, err := back.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var decoded RetryPolicy
		if err := decoded.UnmarshalJSON(b); err != nil {
			t.Fatalf("UnmarshalJSON(%s): %v", b, err)
		}
		if diff := cmp.Diff(p, decoded); diff != "" {
			t.Fatalf("JSON round trip via %s (-want +got):\n%s", b, diff)
		}
	})
}

func TestMarshalJSON(t *testing.T) {
	p := RetryPolicy{MaxAttempts: 4, InitialBackoff: 100 * time.Millisecond, MaxBackoff: 1500 * time.Millisecond, BackoffMultiplier: 1.5, RetryableStatusCodes: []Code{Unavailable, 8}}
	b, err := p.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"maxAttempts":4,"initialBackoff":"0.100s","maxBackoff":"1.500s","backoffMultiplier":1.5,"retryableStatusCodes":["UNAVAILABLE","RESOURCE_EXHAUSTED"]}`
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("MarshalJSON (-want +got):\n%s", diff)
	}
}
