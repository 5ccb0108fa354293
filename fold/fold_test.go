package fold_test

import (
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/fold"
	"github.com/recur-go/recur/verdict"
)

func TestLabels(t *testing.T) {
	l := fold.NewLabels(2)
	var got []string
	for _, target := range []string{"a", fold.Overflow, "b", "c", "a", "b", "d"} {
		got = append(got, l.Admit(target))
	}
	want := []string{"a", fold.Overflow, "b", fold.Overflow, "a", "b", fold.Overflow}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
}

// Past the cap, breakers fold into Overflow with the worst state and the
// sums of their counters; a target admitted once keeps its label.
func TestBreakers(t *testing.T) {
	reg, err := breaker.NewRegistry(breaker.Config{ConsecutiveFailures: 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	fail := func(b *breaker.Breaker) {
		p, err := b.Allow()
		if err != nil {
			t.Fatal(err)
		}
		b.Record(&p, verdict.Failure)
		b.Allow() // refused
	}
	fail(reg.Get("a"))
	reg.Get("b")
	fail(reg.Get("c"))
	lone, err := breaker.New(breaker.Config{})
	if err != nil {
		t.Fatal(err)
	}
	lone.ForceOpen()
	l := fold.NewLabels(2)
	got := fold.Breakers(l, reg, []fold.Named[*breaker.Breaker]{{Target: "z", Of: lone}})
	want := []fold.BreakerRow{
		{Label: "a", State: 2, Opened: 1, Rejected: 1},
		{Label: "b"},
		{Label: fold.Overflow, State: 2, Opened: 1, Rejected: 1}, // c, and z forced open (not counted as opened)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, fold.Breakers(l, reg, []fold.Named[*breaker.Breaker]{{Target: "z", Of: lone}})); diff != "" {
		t.Errorf("second collection (-want +got):\n%s", diff)
	}
	if got := fold.Breakers(fold.NewLabels(2), nil, nil); got != nil {
		t.Errorf("no breakers: %v", got)
	}
}

// Token buckets fold into the fewest tokens; other budgets have no row.
func TestTokens(t *testing.T) {
	reg, err := budget.NewRegistry(budget.TokenBucketConfig{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	reg.Get("a")
	for range 3 {
		reg.Get("b").Record(verdict.Failure)
	}
	reg.Get("c").Record(verdict.Failure)
	ratio, err := budget.RatioConfig{}.New()
	if err != nil {
		t.Fatal(err)
	}
	got := fold.Tokens(fold.NewLabels(1), reg, []fold.Named[budget.Budget]{{Target: "r", Of: ratio}})
	want := []fold.TokenRow{{Label: "a", Tokens: 10}, {Label: fold.Overflow, Tokens: 7}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

func TestStateValue(t *testing.T) {
	got := map[breaker.State]int64{}
	for _, s := range []breaker.State{breaker.Closed, breaker.HalfOpen, breaker.Open, breaker.ForcedOpen, breaker.Disabled, breaker.MetricsOnly} {
		got[s] = fold.StateValue(s)
	}
	want := map[breaker.State]int64{breaker.Closed: 0, breaker.HalfOpen: 1, breaker.Open: 2, breaker.ForcedOpen: 2, breaker.Disabled: 0, breaker.MetricsOnly: 0}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestCheckBuckets(t *testing.T) {
	for _, c := range []struct {
		b    []float64
		want string
	}{
		{nil, ""},
		{[]float64{0.1, 1, math.Inf(1)}, ""},
		{[]float64{}, "empty Config.Buckets (nil means the default buckets)"},
		{[]float64{1, math.NaN()}, "Config.Buckets[1] is NaN"},
		{[]float64{1, 1}, "Config.Buckets do not increase: [1] = 1 after 1"},
	} {
		got := ""
		if err := fold.CheckBuckets(c.b); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("CheckBuckets(%v) = %q; want %q", c.b, got, c.want)
		}
	}
}

// Value leaves short valid text alone, repairs UTF-8, and cuts a long
// value to at most MaxValueLen bytes with a hash of the whole of it.
func TestValue(t *testing.T) {
	long := strings.Repeat("a", 1<<20)
	longer := long + "b"
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"api.example.com", "api.example.com"},
		{"a\xffb", "a\uFFFDb"},
		{strings.Repeat("x", fold.MaxValueLen), strings.Repeat("x", fold.MaxValueLen)},
		{strings.Repeat("x", fold.MaxValueLen+1), strings.Repeat("x", 110) + "~" + fnvHex(strings.Repeat("x", fold.MaxValueLen+1))},
		// 43 invalid bytes repair to 129 bytes of U+FFFD: cut at a
		// character's end (108 bytes, 36 characters).
		{strings.Repeat("\xff ", 43), strings.Repeat("\uFFFD ", 27) + "~" + fnvHex(strings.Repeat("\xff ", 43))},
		{long, strings.Repeat("a", 110) + "~" + fnvHex(long)},
	} {
		got := fold.Value(tc.in)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Value(%.20q…) (-want +got):\n%s", tc.in, diff)
		}
		if len(got) > fold.MaxValueLen || !utf8.ValidString(got) {
			t.Errorf("Value(%.20q…) = %q: %d bytes, valid %v", tc.in, got, len(got), utf8.ValidString(got))
		}
	}
	if fold.Value(long) == fold.Value(longer) {
		t.Error("two long values that share a prefix got one label")
	}
	if n := testing.AllocsPerRun(100, func() { fold.Value("api.example.com") }); n != 0 {
		t.Errorf("Value of a short valid value allocates %v times", n)
	}
}

// fnvHex is the 16 hex digits of s's FNV-1a hash.
func fnvHex(s string) string {
	h := fnv.New64a()
	h.Write([]byte(s))
	return fmt.Sprintf("%016x", h.Sum64())
}

// Admit folds before it de-duplicates: two targets whose Value is the
// same share one label and one row, and a long target's label is short.
func TestAdmitFolds(t *testing.T) {
	reg, err := breaker.NewRegistry(breaker.Config{ConsecutiveFailures: 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	b := reg.Get("a\xff")
	p, err := b.Allow()
	if err != nil {
		t.Fatal(err)
	}
	b.Record(&p, verdict.Failure)
	reg.Get("a\xfe")
	long := strings.Repeat("h", 1<<20)
	reg.Get(long)
	got := fold.Breakers(fold.NewLabels(10), reg, nil)
	want := []fold.BreakerRow{
		{Label: "a\uFFFD", State: 2, Opened: 1},
		{Label: fold.Value(long)},
	}
	sortRows := cmpopts.SortSlices(func(a, b fold.BreakerRow) bool { return a.Label < b.Label })
	if diff := cmp.Diff(want, got, sortRows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}
