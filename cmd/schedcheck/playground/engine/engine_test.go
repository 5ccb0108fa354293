package engine_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/cmd/schedcheck/playground/engine"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/simulate"
	"github.com/recur-go/recur/storm"
)

func TestAnalyzeValid(t *testing.T) {
	a := engine.Analyze("fulljitter(100ms, 2s) & times(4)", 7)
	if a.Error != nil {
		t.Fatalf("Error = %+v", a.Error)
	}
	s, _ := parse.Parse("fulljitter(100ms, 2s) & times(4)")
	want := simulate.Run(context.Background(), s, 7, 0, engine.MaxAttempts)
	if diff := cmp.Diff(&want, a.Run); diff != "" {
		t.Errorf("Run (-want +got):\n%s", diff)
	}
	if !a.Jittered || len(a.Band) != 3 {
		t.Errorf("Jittered = %v, band of %d retries; want true, 3", a.Jittered, len(a.Band))
	}
	if a.Infix != "fulljitter(100ms, 2s) & times(4)" || !strings.Contains(a.Explanation.Explanation, "up to 4 attempts") {
		t.Errorf("Infix = %q, Explanation = %q", a.Infix, a.Explanation.Explanation)
	}
	if a.GRPC == nil || a.GRPC.Error != "" || !strings.Contains(string(a.GRPC.RetryPolicy), `"maxAttempts": 4`) {
		t.Errorf("GRPC = %+v", a.GRPC)
	}
}

func TestAnalyzeError(t *testing.T) {
	a := engine.Analyze("backoff(100ms, 30s) & tims(5)", 1)
	if a.Error == nil {
		t.Fatal("no error")
	}
	if a.Error.Line != 1 || a.Error.Column != 23 || !strings.Contains(a.Error.Message, "did you mean") {
		t.Errorf("Error = %+v, want 1:23 with a suggestion", a.Error)
	}
	if want := "backoff(100ms, 30s) & tims(5)\n" + strings.Repeat(" ", 22) + "^"; a.Error.Caret != want {
		t.Errorf("Caret = %q, want %q", a.Error.Caret, want)
	}
}

// TestFixesApply: every fix the page offers is a policy, and applying it
// removes the finding.
func TestFixesApply(t *testing.T) {
	for _, src := range []string{"exponential(100ms, 200%, 30s) & times(3)", "fibonacci(100ms) & times(3)"} {
		a := engine.Analyze(src, 1)
		applied := 0
		for _, f := range a.Findings {
			if f.Apply == "" {
				continue
			}
			applied++
			b := engine.Analyze(f.Apply, 1)
			if b.Error != nil {
				t.Fatalf("%s: fix %q: %s", src, f.Apply, b.Error.Message)
			}
			for _, g := range b.Findings {
				if g.ID == f.ID {
					t.Errorf("%s: fix %q still has %s", src, f.Apply, f.ID)
				}
			}
		}
		if applied == 0 {
			t.Errorf("%s: no fix applies; findings %+v", src, a.Findings)
		}
	}
}

func TestGRPCRoundTrip(t *testing.T) {
	a := engine.Analyze("fulljitter(250ms, 5s) & times(3)", 1)
	got := engine.FromGRPC(string(a.GRPC.RetryPolicy), false)
	if diff := cmp.Diff(engine.Imported{Policy: "fulljitter(250ms, 5s) & times(3)"}, got); diff != "" {
		t.Errorf("FromGRPC (-want +got):\n%s", diff)
	}
	if got := engine.FromGRPC(`{"maxAttempts": 1}`, false); !strings.Contains(got.Error, "maxAttempts") {
		t.Errorf("FromGRPC(bad) = %+v, want an error naming maxAttempts", got)
	}
	if got := engine.FromGRPC(`[`, false); got.Error == "" {
		t.Errorf("FromGRPC([) = %+v, want an error", got)
	}
}

func TestStorm(t *testing.T) {
	var last storm.Progress
	rows, err := engine.Storm(context.Background(), []string{"exponential(10ms, 200%, 2s)", "", "fulljitter(10ms, 2s)"}, 20, 5, 1, func(_ int, p storm.Progress) { last = p })
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || last.Run != 5 || rows[0].TimeNS <= int64(time.Millisecond) {
		t.Errorf("rows %+v, last progress %+v", rows, last)
	}
	if _, err := engine.Storm(context.Background(), []string{"tims(3)"}, 20, 5, 1, func(int, storm.Progress) {}); err == nil {
		t.Error("Storm of an invalid policy: no error")
	}
}

// TestNoRetryHasEmptyBand: a policy that never retries has an empty band,
// written as [] and not left out, which the page once failed on.
func TestNoRetryHasEmptyBand(t *testing.T) {
	b, err := json.Marshal(engine.Analyze("times(1)", 1))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"band":[]`) {
		t.Errorf("Analyze(times(1)) = %s, want \"band\":[]", b)
	}
}

func TestFromGRPCServiceConfig(t *testing.T) {
	const sc = `{"methodConfig": [
	  {"name": [{"service": "a.A"}]},
	  {"name": [{"service": "b.B"}], "retryPolicy": {"maxAttempts": 8, "initialBackoff": "0.2s", "maxBackoff": "2s", "backoffMultiplier": 1.5, "retryableStatusCodes": ["UNAVAILABLE"]}}
	]}`
	got := engine.FromGRPC(sc, true)
	want := engine.Imported{
		Policy: "jittered(exponential(200ms, 150%, 2s), 80%, 120%) & times(5)",
		Notes:  []string{"maxAttempts 8 is treated as 5, as gRFC A6 requires"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("FromGRPC (-want +got):\n%s", diff)
	}
	if got := engine.FromGRPC(`{"methodConfig": [{"name": [{}]}]}`, false); got.Error != "the service config has no retryPolicy" {
		t.Errorf("FromGRPC without a retryPolicy = %+v", got)
	}
	if got := engine.FromGRPC(strings.Repeat(" ", 1<<20+1), false); got.Error == "" {
		t.Error("FromGRPC of more than 1 MiB: no error")
	}
}

// balanced returns a policy of n Times leaves joined by | into a balanced
// tree: 2n-1 nodes, nested about log2(n) deep.
func balanced(n int) string {
	if n == 1 {
		return "times(2)"
	}
	return "(" + balanced(n/2) + " | " + balanced(n-n/2) + ")"
}

// TestTooBigIsNotSimulated: a policy above storm.MaxNodes is explained
// and linted but not simulated, and the page is told why.
func TestTooBigIsNotSimulated(t *testing.T) {
	a := engine.Analyze(balanced(129), 1)
	if a.Error != nil {
		t.Fatal(a.Error.Message)
	}
	if a.Run != nil || a.Simulated != "the schedule has more than 256 nodes (MaxNodes)" || a.Explanation == nil {
		t.Errorf("Run %v, Simulated %q, Explanation %v", a.Run, a.Simulated, a.Explanation)
	}
	if a := engine.Analyze(balanced(128), 1); a.Run == nil {
		t.Errorf("a policy of 255 nodes is not simulated: %q", a.Simulated)
	}
}

// TestTextFindings: findings that only the text shows, such as a bare
// number where a duration belongs, appear with their fix.
func TestTextFindings(t *testing.T) {
	a := engine.Analyze("spaced(1) & times(3)", 1)
	var got []string
	for _, f := range a.Findings {
		got = append(got, f.ID+" → "+f.Apply)
	}
	if want := []string{"bare-duration → spaced(1s) & times(3)"}; !cmp.Equal(want, got) {
		t.Errorf("findings (-want +got):\n%s", cmp.Diff(want, got))
	}
}

// TestAnalyzeHedge: the page reads every policy as a hedging policy too:
// its words, lint's hedge findings and the load it adds.
func TestAnalyzeHedge(t *testing.T) {
	a := engine.Analyze("spaced(100ms) & times(2)", 1)
	if a.Hedge == nil || a.Hedge.Load == nil {
		t.Fatalf("no hedge view: %+v", a.Hedge)
	}
	if want := "hedged: a second copy at 100ms if no copy has answered by then; at most 2 copies in flight"; a.Hedge.Explanation != want {
		t.Errorf("explanation %q, want %q", a.Hedge.Explanation, want)
	}
	if len(a.Hedge.Findings) != 0 {
		t.Errorf("findings %v, want none", a.Hedge.Findings)
	}
	if x := a.Hedge.Load.Extra; x < 0.03 || x > 0.08 {
		t.Errorf("extra load %.3f, want about 5%% for a hedge near the p95", x)
	}
	b := engine.Analyze("times(2)", 1)
	if len(b.Hedge.Findings) != 1 || b.Hedge.Findings[0].ID != "hedge-no-delay" || b.Hedge.Findings[0].Apply == "" {
		t.Errorf("times(2) as a hedge: %+v, want hedge-no-delay with a fix to apply", b.Hedge.Findings)
	}
}
