package audit_test

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/audit"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

func mustParse(t *testing.T, src string) schedule.Schedule {
	t.Helper()
	s, err := parse.Parse(src)
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	return s
}

// The counts are worked out by hand in the comments: attempt start times,
// with each attempt taking the given least time.
var maxAttemptsTable = []struct {
	policy string
	min    time.Duration
	want   int
}{
	{"times(4)", 0, 4},
	{"times(4)", time.Hour, 4},                                 // Times does not look at the clock
	{"times(3) then times(2)", 0, 4},                           // 3, then the decision that ends Times(3) is Times(2)'s first: 1 more
	{"backoff(100ms, 10s) & times(8)", 0, 8},                   // the cap, whatever the waits
	{"spaced(1s) upto 10s", 0, 11},                             // 0, 1, …, 10s: equal to the budget is allowed
	{"spaced(1s) upto 10s", 1500 * time.Millisecond, 7},        // every slot overrun, next at once: 0, 1.5, 3, 4.5, 6, 7.5, 9; 10.5 > 10
	{"forever upto 10s", 0, math.MaxInt},                       // instant attempts never spend the budget
	{"forever upto 10s", time.Second, 11},                      // 0, 1, …, 10
	{"forever upto 10s", 3 * time.Second, 4},                   // 0, 3, 6, 9; 12 > 10
	{"exponential(1s, 200%, 8s) upto 10s", 0, 4},               // 0, 1, 3, 7; 15 > 10
	{"exponential(1s, 200%, 8s) upto 10s", time.Second, 4},     // 0, 2, 5, 10; 19 > 10
	{"exponential(1s, 200%, 8s) upto 10s", 2 * time.Second, 3}, // 0, 3, 7; 13 > 10
	{"fulljitter(1s, 8s) upto 10s", 0, math.MaxInt},            // full jitter can draw zero waits
	{"fulljitter(1s, 8s) upto 10s", 2 * time.Second, 6},        // zero waits: 0, 2, 4, 6, 8, 10
	{"times(2) then (fulljitter(1s, 8s) upto 5s)", 0, math.MaxInt},
	// 0, 1 (Times(2)); then UpTo measures from 1s, the start of the attempt
	// that ended Times(2), with zero waits: 2, 3, 4, 5, 6; 7 > 1+5.
	{"times(2) then (fulljitter(1s, 8s) upto 5s)", time.Second, 7},
	{"times(3) & fulljitter(100ms, 1s) upto 2s", 0, 3},
	{"times(5) upto 0s", 0, 5},                             // every instant attempt starts at 0, within a zero budget
	{"times(5) upto 0s", time.Millisecond, 1},              // the second would start at 1ms
	{"decorrelated(1s, 1m) upto 5s", 2 * time.Second, 2},   // least waits 1s: 0, 3; 6 > 5
	{"spaced(1s)", 0, math.MaxInt},                         // never stops
	{"times(2) then spaced(1m)", time.Second, math.MaxInt}, // never stops
}

func TestMaxAttempts(t *testing.T) {
	for _, tt := range maxAttemptsTable {
		if got := audit.MaxAttempts(mustParse(t, tt.policy), tt.min); got != tt.want {
			t.Errorf("MaxAttempts(%s, %v) = %d; want %d", tt.policy, tt.min, got, tt.want)
		}
	}
	if got := audit.MaxAttempts(nil, 0); got != 1 {
		t.Errorf("MaxAttempts(nil, 0) = %d; want 1", got)
	}
	if got := audit.MaxAttempts(schedule.Times{N: 0}, 0); got != 1 {
		t.Errorf("MaxAttempts(invalid, 0) = %d; want 1 (interp stops it at once)", got)
	}
}

// TestMaxAttemptsCutsLongRuns checks that a run past MaxCounted is cut
// and then reported by its static bound, or as unbounded.
func TestMaxAttemptsCutsLongRuns(t *testing.T) {
	if got := audit.MaxAttempts(mustParse(t, "forever upto 1h"), time.Microsecond); got != math.MaxInt {
		t.Errorf("forever upto 1h at 1µs per attempt = %d; want math.MaxInt (3.6e9 attempts is past MaxCounted)", got)
	}
	if got, want := audit.MaxAttempts(mustParse(t, "spaced(1ms) upto 1h"), 0), 3_600_001; got != want {
		t.Errorf("spaced(1ms) upto 1h = %d; want %d, from schedule.Bounds", got, want)
	}
}

// layer is a layer with a retry policy and a least attempt time.
func layer(t *testing.T, name, policy string, min time.Duration) audit.Layer {
	l := audit.Layer{Name: name, MinAttemptTime: audit.Duration(min)}
	if policy != "" {
		l.Retry = parse.Policy{Schedule: mustParse(t, policy)}
	}
	return l
}

func TestAmplification(t *testing.T) {
	type lay struct {
		policy string
		min    time.Duration
	}
	tests := []struct {
		name   string
		layers []lay
		want   int
	}{
		{"SRE book: 4 attempts at 3 layers", []lay{{"times(4)", 0}, {"times(4)", 0}, {"times(4)", 0}}, 64},
		{"one layer retries", []lay{{"", 0}, {"times(1)", 0}, {"fulljitter(100ms, 30s) & times(3)", 0}}, 3},
		// 4 (3 then 2) × 11 (0..10s) × 1
		{"AndThen and UpTo", []lay{{"times(3) then times(2)", 0}, {"spaced(1s) upto 10s", 0}, {"times(1)", 0}}, 44},
		// 3 (0, 3, 7) × 4 (0, 3, 6, 9) × 7 (two, then 2..6s)
		{"time-bounded layers with least attempt times", []lay{
			{"exponential(1s, 200%, 8s) upto 10s", 2 * time.Second},
			{"forever upto 10s", 3 * time.Second},
			{"times(2) then (fulljitter(1s, 8s) upto 5s)", time.Second},
		}, 84},
		// 1 × 1 (1ms > a zero budget) × 5
		{"zero budgets", []lay{{"", 0}, {"times(5) upto 0s", time.Millisecond}, {"times(5) upto 0s", 0}}, 5},
		// 3 × 8
		{"Times inside UpTo and Intersect", []lay{{"times(3) & fulljitter(100ms, 1s) upto 2s", 0}, {"backoff(100ms, 10s) & times(8)", 0}}, 24},
		{"a layer bounded only by time", []lay{{"times(3)", 0}, {"forever upto 10s", 0}}, math.MaxInt},
		{"a product past int", []lay{{"times(4294967296)", 0}, {"times(4294967296)", 0}}, math.MaxInt},
	}
	for _, tt := range tests {
		var p audit.Plan
		for i, l := range tt.layers {
			p.Layers = append(p.Layers, layer(t, string(rune('a'+i)), l.policy, l.min))
		}
		if got := p.Amplification(); got != tt.want {
			t.Errorf("%s: Amplification() = %d; want %d", tt.name, got, tt.want)
		}
	}
}

func TestAmplificationMessage(t *testing.T) {
	p := passing()
	p.Layers = nil
	for _, name := range []string{"frontend", "backend", "db-client"} {
		l := passing().Layers[0]
		l.Name = name
		l.Retry = parse.Policy{Schedule: mustParse(t, "fulljitter(100ms, 1s) & times(4)")}
		l.AttemptTimeout = audit.Duration(100 * time.Millisecond)
		p.Layers = append(p.Layers, l)
	}
	var got []audit.Finding
	for _, f := range audit.Run(p).Findings {
		if f.ID == "retry-amplification" {
			got = append(got, f)
		}
	}
	want := []audit.Finding{{ID: "retry-amplification", Severity: audit.Error,
		Message: "3 layers retry (attempts: frontend 4 × backend 4 × db-client 4): one request can make 64 attempts on payments-api, the product of every layer's attempts"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("amplification finding (-want +got):\n%s", diff)
	}
}
