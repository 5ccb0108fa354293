package edges

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"github.com/google/go-cmp/cmp"
)

// shape is what a probe saw, in the words of the table, without the
// random values.
type shape struct {
	Negative, Zero, Panic string // "never", "every step from N" or "some steps"
	FirstMax              int64
}

func shapeOf(r Result) shape {
	kind := func(n, first int64) string {
		switch {
		case n == 0:
			return "never"
		case n == r.Steps-first+1:
			return "every step from " + count(first)
		}
		return "some steps"
	}
	return shape{kind(r.Negative, r.FirstNegative), kind(r.Zero, r.FirstZero), kind(r.Panics, r.FirstPanic), r.FirstMax}
}

// TestCases pins what the table says about each case, over 200 steps.
// The float-to-int conversions that go out of range give math.MinInt64 on
// amd64 and saturate on arm64, so those rows are checked on amd64 only.
func TestCases(t *testing.T) {
	clean := shape{"never", "never", "never", 0}
	sat := func(step int64) shape { s := clean; s.FirstMax = step; return s }
	want := map[string]struct {
		shape
		amd64Only bool
		or        *shape // another outcome the randomness allows
	}{
		"recur Exponential{Base: 100ms, FactorPct: 200, Cap: max}":                                  {shape: sat(38)},
		"recur FullJitter(100ms, max)":                                                              {shape: clean},
		"cenkalti ExponentialBackOff{InitialInterval: 100ms, Multiplier: 2}":                        {shape: clean},
		"cenkalti ExponentialBackOff{InitialInterval: 100ms, Multiplier: 2, MaxInterval: max}":      {shape: sat(38)},
		"cenkalti ExponentialBackOff{InitialInterval: 50ms, Multiplier: 2, RandomizationFactor: 1}": {shape: clean},
		"cenkalti ExponentialBackOff{InitialInterval: 50ms, Multiplier: 2, RandomizationFactor: 1, MaxInterval: max}": {
			shape: shape{Negative: "some steps", Zero: "never", Panic: "never"}, amd64Only: true},
		"sethvargo NewExponential(100ms)":                                          {shape: sat(38)},
		"sethvargo WithCappedDuration(max, NewExponential(100ms))":                 {shape: sat(38)},
		"sethvargo WithFullJitter(NewExponential(100ms))":                          {shape: clean},
		"sethvargo WithFullJitter(WithCappedDuration(max, NewExponential(100ms)))": {shape: clean},
		"avast BackOffDelay, Delay(100ms)":                                         {shape: clean},
		"avast BackOffDelay, Delay(100ms), MaxDelay(max)":                          {shape: clean},
		"avast FullJitterBackoffDelay, Delay(50ms)": {
			shape: shape{Negative: "never", Zero: "never", Panic: "every step from 38"}, amd64Only: true},
		"avast FullJitterBackoffDelay, Delay(50ms), MaxDelay(max)": {
			shape: shape{Negative: "never", Zero: "never", Panic: "every step from 38"}, amd64Only: true},
		"avast default: CombineDelay(BackOffDelay, RandomDelay), Delay(100ms), MaxJitter(100ms)": {shape: clean},
		"retryablehttp DefaultBackoff(100ms, 0, n, nil)":                                         {shape: shape{Negative: "never", Zero: "every step from 1", Panic: "never"}},
		"retryablehttp DefaultBackoff(100ms, max, n, nil)":                                       {shape: sat(38)},
		"failsafe-go NewBuilder().WithBackoff(100ms, 0)":                                         {shape: clean},
		"failsafe-go NewBuilder().WithBackoff(100ms, max)": {
			shape: shape{Negative: "never", Zero: "every step from 38", Panic: "never"}, amd64Only: true},
		"failsafe-go NewBuilder().WithBackoff(50ms, 0).WithJitterFactor(1)": {shape: clean},
		// At step 38 the delay is 50ms·2³⁷ jittered into [0, 2⁶⁴): zero
		// when the draw is 2⁶³ or more; from step 39 on it is always zero.
		"failsafe-go NewBuilder().WithBackoff(50ms, max).WithJitterFactor(1)": {
			shape: shape{Negative: "never", Zero: "every step from 39", Panic: "never"}, amd64Only: true,
			or: &shape{Negative: "never", Zero: "every step from 38", Panic: "never"}},
	}
	seen := map[string]bool{}
	for _, c := range Cases() {
		name := c.Lib + " " + c.Config
		seen[name] = true
		w, ok := want[name]
		if !ok {
			t.Errorf("case %q has no expectation", name)
			continue
		}
		if c.Note == "" {
			t.Errorf("case %q has no note", name)
		}
		if w.amd64Only && runtime.GOARCH != "amd64" {
			continue
		}
		got := shapeOf(Probe(c, 200))
		if w.or != nil && got == *w.or {
			continue
		}
		if diff := cmp.Diff(w.shape, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("expectation %q has no case", name)
		}
	}
}

// TestProbeRecordsSteps checks the harness on a stepper whose every
// outcome is known.
func TestProbeRecordsSteps(t *testing.T) {
	c := Case{New: func() (func() time.Duration, func()) {
		var i int64
		return just(func() time.Duration {
			i++
			switch {
			case i%10 == 0:
				panic("tenth")
			case i%5 == 0:
				return -1
			case i%3 == 0:
				return 0
			case i == 7:
				return maxDuration
			}
			return time.Duration(i)
		})
	}}
	got := Probe(c, 7, 10, 11)
	want := Result{
		Case:     got.Case,
		At:       map[int64]Outcome{7: {Delay: maxDuration}, 10: {Panic: "tenth"}, 11: {Delay: 11}},
		Steps:    11,
		Negative: 1, Zero: 3, Panics: 1, // -1 at 5; 0 at 3, 6, 9; panic at 10
		FirstNegative: 5, FirstZero: 3, FirstPanic: 10, FirstMax: 7,
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b Case) bool { return true })); diff != "" {
		t.Errorf("Probe (-want +got):\n%s", diff)
	}
}

// TestFailsafeDelays checks that the cancelled-execution driver sees the
// delays failsafe-go documents for a small backoff.
func TestFailsafeDelays(t *testing.T) {
	next, stop := FailsafeDelays(retrypolicy.NewBuilder[int]().WithBackoff(time.Millisecond, 8*time.Millisecond))
	defer stop()
	var got []time.Duration
	for range 6 {
		got = append(got, next())
	}
	ms := time.Millisecond
	if diff := cmp.Diff([]time.Duration{ms, 2 * ms, 4 * ms, 8 * ms, 8 * ms, 8 * ms}, got); diff != "" {
		t.Errorf("WithBackoff(1ms, 8ms) delays (-want +got):\n%s", diff)
	}
}

func TestZeroBases(t *testing.T) {
	verdict := func(o ZeroOutcome) string {
		switch {
		case o.Panic != "":
			return "panic"
		case o.Err != nil:
			return "error"
		case allZero(o.Delays):
			return "all zero"
		}
		return "accepted"
	}
	got := map[string]string{}
	for _, z := range ZeroBases() {
		got[z.Lib+" "+z.Config] = verdict(TryZero(z, 8))
	}
	want := map[string]string{
		"recur FullJitter(0, 10s)": "error",
		"cenkalti ExponentialBackOff{Multiplier: 2, RandomizationFactor: 0.5, MaxInterval: 10s}": "all zero",
		"sethvargo NewExponential(0)":                                       "panic",
		"avast default (CombineDelay(BackOffDelay, RandomDelay)), Delay(0)": "accepted",
		"avast BackOffDelay, Delay(0)":                                      "accepted",
		"avast FullJitterBackoffDelay, Delay(0), MaxDelay(10s)":             "all zero",
		"retryablehttp DefaultBackoff(0, 30s, n, nil) (RetryWaitMin 0)":     "all zero",
		"failsafe-go NewBuilder().WithBackoff(0, 10s)":                      "all zero",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("zero-base verdicts (-want +got):\n%s", diff)
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{count(100), "100"},
		{count(10_000), "10 000"},
		{count(1_234_567), "1 234 567"},
		{count(10_000_000), "10⁷"},
		{short(0), "0"},
		{short(13_516_080), "13.5ms"},
		{short(100 * time.Millisecond), "100ms"},
		{short(maxDuration), "max (292 y)"},
		{short(-maxDuration - 1), "min (−292 y)"},
		{short(218 * year), "218 y"},
		{cell(Outcome{Delay: -5}), "**negative**: -5ns"},
		{cell(Outcome{Panic: "boom"}), "**panic**: boom"},
		{cell(Outcome{Delay: maxDuration}), "max"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestWriteTable(t *testing.T) {
	var b strings.Builder
	cs := Cases()[:2]
	if err := WriteTable(&b, []Result{Probe(cs[0], 10, 100), Probe(cs[1], 10, 100)}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("table has %d lines, want 4 (header, rule, two rows):\n%s", len(lines), b.String())
	}
	if want := "| library | configuration | cap | step 10 | step 100 | over all 100 steps | why |"; lines[0] != want {
		t.Errorf("header = %q, want %q", lines[0], want)
	}
	if !strings.HasPrefix(lines[2], "| recur | `Exponential{") || !strings.Contains(lines[2], "| max | never negative, zero or a panic; reaches max at step 38 |") {
		t.Errorf("first row = %q", lines[2])
	}
}
