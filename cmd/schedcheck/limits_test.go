package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// balanced returns a policy of n Forever leaves joined by & in a balanced
// tree (2n-1 nodes), which nests only log₂ n deep.
func balanced(n int) string {
	if n == 1 {
		return "forever"
	}
	return "(" + balanced(n/2) + ") & (" + balanced(n-n/2) + ")"
}

// Every flag of simulate, plot and storm has a maximum, checked before any
// work, with an error naming the flag, its value and the limit. The first
// rows are the reproductions that used to panic (plot, storm), run out of
// memory (simulate, storm at 10⁸ clients) or run for half an hour (storm
// --clients 20000 forever).
func TestFlagLimits(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"plot", "--max-retries", "9223372036854775807", "forever"}, "schedcheck: plot: --max-retries 9223372036854775807 is above the maximum 1000\n"},
		{[]string{"storm", "--clients", "9223372036854775807", "--runs", "1", "times(2)"}, "schedcheck: storm: --clients 9223372036854775807 is above the maximum 10000\n"},
		{[]string{"storm", "--clients", "100000000", "--runs", "1", "times(2)"}, "schedcheck: storm: --clients 100000000 is above the maximum 10000\n"},
		{[]string{"storm", "--clients", "20000", "forever"}, "schedcheck: storm: --clients 20000 is above the maximum 10000\n"},
		{[]string{"simulate", "--json", "--max-attempts", "9223372036854775807", "forever"}, "schedcheck: simulate: --max-attempts 9223372036854775807 is above the maximum 100000\n"},
		{[]string{"simulate", "--max-attempts", "0", "forever"}, "schedcheck: simulate: --max-attempts 0 is below the minimum 1\n"},
		{[]string{"simulate", "--attempt-time", "169h", "forever"}, "schedcheck: simulate: --attempt-time 169h0m0s is above the maximum 168h0m0s\n"},
		{[]string{"simulate", "--attempt-time", "-1s", "--max-attempts", "-1", "forever"}, "schedcheck: simulate: --max-attempts -1 is below the minimum 1\nschedcheck: simulate: --attempt-time -1s is below the minimum 0s\n"},
		{[]string{"plot", "--seeds", "100001", "forever"}, "schedcheck: plot: --seeds 100001 is above the maximum 100000\n"},
		{[]string{"plot", "--seeds", "0", "forever"}, "schedcheck: plot: --seeds 0 is below the minimum 1\n"},
		{[]string{"plot", "--seeds", "100000", "forever"}, "schedcheck: plot: --seeds 100000 × --max-retries 20 = 2000000 delays, above the maximum 1000000\n"},
		{[]string{"plot", "-o", "x.gif", "forever"}, "schedcheck: plot: -o x.gif: want a .svg or .png file\n"},
		{[]string{"storm", "--runs", "10001", "forever"}, "schedcheck: storm: --runs 10001 is above the maximum 10000\n"},
		{[]string{"storm", "--runs", "0", "forever"}, "schedcheck: storm: --runs 0 is below the minimum 1\n"},
		{[]string{"storm", "--clients", "10000", "--runs", "101", "forever"}, "schedcheck: storm: --clients 10000 × --runs 101 = 1010000 write calls at the least, above the maximum 1000000\n"},
		{[]string{"storm", "t(1)", "t(1)", "t(1)", "t(1)", "t(1)", "t(1)", "t(1)", "t(1)", "t(1)"}, "schedcheck: storm: 9 policies; storm compares at most 8 at a time\n"},
		{[]string{"simulate", balanced(129)}, "schedcheck: simulate: the policy has more than 256 nodes, the most a simulation takes\n"},
		{[]string{"plot", balanced(129)}, "schedcheck: plot: the policy has more than 256 nodes, the most a simulation takes\n"},
		{[]string{"storm", "forever", balanced(129)}, "schedcheck: arg 2: storm: invalid Config: the schedule has more than 256 nodes (MaxNodes)\n"},
		{[]string{"storm", "--clients", "10000", "--runs", "1", balanced(14)}, "schedcheck: arg 1: storm: invalid Config: Clients 10000 × 27 schedule nodes = 270000 node states, above the maximum 262144 (MaxStates)\n"},
	}
	t.Chdir(t.TempDir())
	for _, tt := range tests {
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		var out, errb bytes.Buffer
		start := time.Now()
		code := run(ctx, tt.args, strings.NewReader(""), &out, &errb)
		cancel()
		name := strings.Join(tt.args, " ")
		if len(name) > 80 {
			name = name[:80] + "…"
		}
		if code != exitUsage {
			t.Errorf("%s: exit status %d; want %d", name, code, exitUsage)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s took %v; want an error at once", name, d)
		}
		if diff := cmp.Diff(tt.want, errb.String()); diff != "" {
			t.Errorf("%s: stderr (-want +got):\n%s", name, diff)
		}
		if out.Len() != 0 {
			t.Errorf("%s: stdout %q; want nothing", name, out.String())
		}
	}
}

// Work beyond the budget is cut short, and the table says so.
func TestStormCutShown(t *testing.T) {
	if testing.Short() {
		t.Skip("a million write calls")
	}
	out, _, code := schedcheck(t, "", "storm", "--clients", "100", "--runs", "1000", "forever")
	if code != exitOK || !strings.Contains(out, "  1000.0 ") || !strings.Contains(out, "Forever (1000 runs cut short at 1000 write calls)\n") {
		t.Errorf("exit %d, output:\n%s\nwant 1000 calls a run, every run cut short", code, out)
	}
}

// The largest values accepted still work.
func TestFlagLimitsAccepted(t *testing.T) {
	for _, args := range [][]string{
		{"simulate", "--json", "--max-attempts", "100000", "--attempt-time", "168h", "forever"},
		{"plot", "--seeds", "1000", "--max-retries", "1000", "forever"},
		{"storm", "--clients", "10000", "--runs", "1", "times(2)"},
		{"simulate", balanced(128)},
	} {
		_, errs, code := schedcheck(t, "", args...)
		if code != exitOK {
			t.Errorf("%.80s: exit %d: %s", strings.Join(args, " "), code, errs)
		}
	}
}

// cancelOn is a progress terminal that cancels the context once it has
// been sent text containing substr.
type cancelOn struct {
	bytes.Buffer
	substr string
	cancel context.CancelFunc
}

func (w *cancelOn) Write(p []byte) (int, error) {
	n, err := w.Buffer.Write(p)
	if strings.Contains(w.String(), w.substr) {
		w.cancel()
	}
	return n, err
}

// runIn runs a command in this process with the given context and
// progress terminal, which is updated at every step.
func runIn(ctx context.Context, progress *cancelOn, args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	c := &cli{ctx: ctx, stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
	if progress != nil {
		c.progress = progress
	}
	for _, cmd := range commands() {
		if cmd.name == args[0] {
			code = cmd.run(c, args[1:])
		}
	}
	return out.String(), errb.String(), code
}

// Ctrl-C in the middle of storm's second policy: the first row is whole,
// the second is partial (marked, and averaged over the runs made), the
// third policy is not run, and the exit status is 130. The progress line
// showed each step and was erased at the end.
func TestStormInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	term := &cancelOn{substr: "policy 2 of 3: run 2 of 5", cancel: cancel}
	args := []string{"storm", "--clients", "20", "--runs", "5", "fulljitter(10ms, 2s)", "decorrelated(5ms, 2s)", "times(3)"}
	out, errs, code := runIn(ctx, term, args...)
	if code != exitInterrupted {
		t.Errorf("exit %d; want %d", code, exitInterrupted)
	}
	if want := "schedcheck: storm: interrupted during policy 2 of 3 after 2 of 5 runs; the output is partial\n"; errs != want {
		t.Errorf("stderr %q; want %q", errs, want)
	}
	whole, _, _ := runIn(context.Background(), nil, "storm", "--clients", "20", "--runs", "5", "fulljitter(10ms, 2s)")
	first := strings.Split(whole, "\n")[2]
	two, _, _ := runIn(context.Background(), nil, "storm", "--clients", "20", "--runs", "2", "decorrelated(5ms, 2s)")
	second := strings.Split(two, "\n")[2] + " (partial: 2 of 5 runs)"
	lines := strings.Split(out, "\n")
	if len(lines) != 5 || !strings.HasSuffix(lines[2], strings.TrimSpace(first)) || !strings.HasSuffix(lines[3], strings.TrimSpace(second)) {
		t.Errorf("output:\n%s\nwant the whole first row %q and the partial second %q", out, first, second)
	}
	p := term.String()
	for _, want := range []string{"\r\033[Kstorm: policy 1 of 3: run 5 of 5,", "\r\033[Kstorm: policy 2 of 3: run 1 of 5,"} {
		if !strings.Contains(p, want) {
			t.Errorf("progress %q lacks %q", p, want)
		}
	}
	if strings.Contains(p, "policy 3") || !strings.HasSuffix(p, "\r\033[K") {
		t.Errorf("progress %q: want no policy 3 and the line erased at the end", p)
	}
}

// With --json the partial row says so.
func TestStormInterruptedJSON(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	term := &cancelOn{substr: "run 3 of 10", cancel: cancel}
	out, _, code := runIn(ctx, term, "storm", "--json", "--clients", "20", "--runs", "10", "fulljitter(10ms, 2s)")
	if code != exitInterrupted {
		t.Errorf("exit %d; want %d", code, exitInterrupted)
	}
	var got stormRow
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	if got.Runs != 3 || !got.Partial || !strings.Contains(out, `"partial":true`) {
		t.Errorf("row %s; want 3 runs, partial", out)
	}
}

// Interrupted within one long run: storm stops within storm.ProgressEvery
// write calls and reports the run it was in.
func TestStormInterruptedWithinRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	term := &cancelOn{substr: "run 0 of 1, 16384 write calls", cancel: cancel}
	out, errs, code := runIn(ctx, term, "storm", "--clients", "1000", "--runs", "1", "forever")
	if code != exitInterrupted || !strings.Contains(out, "32768.0") || !strings.Contains(out, "Forever (1 runs cut short at 1000000 write calls) (partial: 1 of 1 runs)") {
		t.Errorf("exit %d, output:\n%s%s\nwant 130 and one partial row of 32768 calls", code, out, errs)
	}
}

// Interrupted, plot charts the runs made so far, marked partial.
func TestPlotInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	term := &cancelOn{substr: "plot: seed 10 of 1000", cancel: cancel}
	out, errs, code := runIn(ctx, term, "plot", "backoff(100ms, 30s) & times(3)")
	if code != exitInterrupted {
		t.Errorf("exit %d; want %d", code, exitInterrupted)
	}
	want := "Intersect(Jittered(Exponential(100ms, 200%, 30s), 50%, 100%), Times(3))\n10 seeds; each row: delay p5 ├─●─┤ p95 (● median)\npartial: interrupted after 10 of 1000 seeds\n"
	if !strings.HasPrefix(out, want) || strings.Count(out, "\n") != 6 {
		t.Errorf("output:\n%s\nwant it to begin\n%s\nand chart 2 retries", out, want)
	}
	if want := "schedcheck: plot: interrupted after 10 of 1000 seeds; the chart is partial\n"; errs != want {
		t.Errorf("stderr %q; want %q", errs, want)
	}
	// Written to a file, the chart says so too.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	svg := filepath.Join(t.TempDir(), "p.svg")
	if _, _, code := runIn(ctx, &cancelOn{substr: "seed 10 of", cancel: cancel}, "plot", "-o", svg, "backoff(100ms, 30s) & times(3)"); code != exitInterrupted {
		t.Errorf("plot -o: exit %d; want %d", code, exitInterrupted)
	}
	if b, err := os.ReadFile(svg); err != nil || !bytes.Contains(b, []byte("partial: interrupted after 10 of 1000 seeds")) {
		t.Errorf("svg %.200s, %v; want it marked partial", b, err)
	}
}

// Interrupted, simulate prints the attempts so far, marked partial; it
// checks every 1024 attempts.
func TestSimulateInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out, errs, code := runIn(ctx, nil, "simulate", "--json", "--max-attempts", "5000", "forever")
	if code != exitInterrupted || errs != "schedcheck: simulate: interrupted after 1024 attempts; the output is partial\n" {
		t.Errorf("exit %d, stderr %q; want 130 and the interruption", code, errs)
	}
	var got simulation
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Attempts != 1024 || len(got.DelaysNS) != 1023 || !got.Partial || got.Truncated {
		t.Errorf("got %d attempts, %d delays, partial %v, truncated %v; want 1024, 1023, true, false", got.Attempts, len(got.DelaysNS), got.Partial, got.Truncated)
	}
	out, _, _ = runIn(ctx, nil, "simulate", "--max-attempts", "5000", "forever")
	if !strings.Contains(out, "1024            0s  attempt 1024 fails; interrupted: partial\n") {
		t.Errorf("timeline ends %q; want attempt 1024 marked partial", out[max(0, len(out)-200):])
	}
}

// Progress goes only to a terminal, and only once a run has taken the
// pace: short runs print nothing.
func TestProgressOnlyOnTerminalAndLongRuns(t *testing.T) {
	if terminal(&bytes.Buffer{}) != nil {
		t.Error("a buffer is taken for a terminal")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if terminal(f) != nil {
		t.Error("a regular file is taken for a terminal")
	}
	var term bytes.Buffer
	c := &cli{progress: &term, pace: time.Hour}
	m := c.meter()
	m.printf("never")
	m.clear()
	if term.Len() != 0 {
		t.Errorf("progress %q before the pace; want nothing", term.String())
	}
}
