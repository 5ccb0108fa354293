package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/cmd/schedcheck/internal/sat"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/simulate"
	"github.com/recur-go/recur/storm"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// schedcheck runs the command in-process, through run, from testdata, and
// returns its stdout, stderr and exit status. In-process runs count for
// coverage; TestBinary runs the built program end to end.
func schedcheck(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	// Only for the run: the tests themselves read testdata/... paths. No
	// test in this package is parallel, so the working directory is theirs.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir("testdata"); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := os.Chdir(wd); err != nil {
			panic(err) // every later test would read the wrong files
		}
	}()
	var out, errb bytes.Buffer
	code := run(t.Context(), args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

// buildBinary builds schedcheck once, for the tests that run the program
// itself: its exit status through os.Exit, its standard streams.
var buildBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "schedcheck")
	if err != nil {
		return "", err
	}
	binary := filepath.Join(dir, "schedcheck")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return binary, nil
})

// binary returns the built schedcheck.
func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the program")
	}
	b, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestMain(m *testing.M) {
	code := m.Run()
	if b, err := buildBinary(); err == nil {
		os.RemoveAll(filepath.Dir(b))
	}
	os.Exit(code)
}

// TestBinary runs the built program on a few commands, from testdata, and
// checks that it prints and exits as run does in-process.
func TestBinary(t *testing.T) {
	bin := binary(t)
	for _, tt := range []struct {
		stdin string
		args  []string
	}{
		{"", []string{"check", "backoff(100, 30000) & times(5)"}},
		{"", []string{"check", "-f", "bad_policy.txt"}},
		{"times(2) & spaced(1s)\n", []string{"explain", "--json", "-f", "-"}},
		{"", []string{"lint", "spaced(1s)"}},
		{"", []string{"frobnicate"}},
	} {
		cmd := exec.Command(bin, tt.args...)
		cmd.Dir = "testdata"
		cmd.Stdin = strings.NewReader(tt.stdin)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		wantOut, wantErr, wantCode := schedcheck(t, tt.stdin, tt.args...)
		if code != wantCode {
			t.Errorf("%v: exit status %d; in-process %d", tt.args, code, wantCode)
		}
		if diff := cmp.Diff(wantOut, out.String()); diff != "" {
			t.Errorf("%v: stdout (-in-process +binary):\n%s", tt.args, diff)
		}
		if diff := cmp.Diff(wantErr, errb.String()); diff != "" {
			t.Errorf("%v: stderr (-in-process +binary):\n%s", tt.args, diff)
		}
	}
}

func TestGolden(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"check_ok", []string{"check", "backoff(100, 30000) & times(5)", "fulljitter(100ms, 2s) & times(3)"}, 0},
		// Valid, but almost certainly wrong: lint's error rules fail check.
		{"check_lint_error", []string{"check", "backoff(2s, 100ms) & times(5)", "spaced(1) & times(3)", "AndThen(Times(3), Spaced(60000))"}, 1},
		{"check_repeat", []string{"check", "--for", "repeat", "AndThen(Times(3), Spaced(60000))", "spaced(5s) upto 10m"}, 0},
		{"check_repeat_error", []string{"check", "--for", "repeat", "backoff(2s, 100ms)"}, 1},
		{"check_unknown_name", []string{"check", "Intersect(Exponental(100ms, 200%, 30s), Times(5))"}, 1},
		{"check_file", []string{"check", "-f", "bad_policy.txt"}, 1},
		{"check_yaml_key", []string{"check", "-f", "service.yaml", "--key", "clients.*.retry"}, 1},
		{"check_json_key", []string{"check", "-f", "service.json", "--key", "clients.*.retry"}, 0},
		{"check_toml_key", []string{"check", "-f", "service.toml", "--key", "clients.*.retry"}, 1},
		{"check_usage", []string{"check"}, 2},
		{"fmt", []string{"fmt", "backoff(100, 30000) & times(5)", "times(3) then spaced(1m) upto 1h"}, 0},
		{"fmt_infix", []string{"fmt", "--infix", "Intersect(Jittered(Exponential(100ms, 200%, 30s), 50%, 100%), Times(5))"}, 0},
		{"fmt_simplify", []string{"fmt", "--simplify", "times(3) | times(5) | (forever & spaced(1s))"}, 0},
		{"explain", []string{"explain", "backoff(100ms, 30s) & times(5)"}, 0},
		{"explain_forever", []string{"explain", "times(3) then spaced(1m)"}, 0},
		{"explain_upto_forever", []string{"explain", "forever upto 1m"}, 0},
		{"lint", []string{"lint", "exponential(100ms, 200%, 30s) & times(8)", "fulljitter(100ms, 30s) & times(3)"}, 0},
		{"lint_error", []string{"lint", "spaced(1s)"}, 1},
		{"lint_consistent", []string{"lint", "backoff(100ms, 30s) & times(5)", "fulljitter(100ms, 5m) & times(3)", "backoff(30s, 100ms) & times(3)", "spaced(1) & times(3)"}, 1},
		{"lint_fail_on_warning", []string{"lint", "--fail-on", "warning", "exponential(100ms, 200%, 30s) & times(3)"}, 1},
		{"lint_fail_on_info", []string{"lint", "--fail-on", "info", "jittered(exponential(100ms, 200%, 30s), 0%, 150%) & times(3)"}, 1},
		{"lint_warning_passes", []string{"lint", "exponential(100ms, 200%, 30s) & times(3)"}, 0},
		{"lint_repeat", []string{"lint", "--for", "repeat", "spaced(5s) upto 10m", "times(3)"}, 0},
		{"lint_bad_flags", []string{"lint", "--fail-on", "fatal", "times(3)"}, 2},
		{"plot_cut", []string{"plot", "backoff(100ms, 1s)", "--seeds", "100", "--max-retries", "4"}, 0},
		{"plot_zero", []string{"plot", "times(3)", "--seeds", "10"}, 0},
		{"unknown_command_typo", []string{"expalin", "times(3)"}, 2},
		{"simulate", []string{"simulate", "backoff(100ms, 30s) & times(5)", "--seed", "7"}, 0},
		{"simulate_attempt_time", []string{"simulate", "spaced(10s) upto 30s", "--attempt-time", "4s"}, 0},
		{"plot", []string{"plot", "backoff(100ms, 30s) & times(6)", "--seeds", "500"}, 0},
		{"storm", []string{"storm", "--clients", "20", "--runs", "10", "exponential(10ms, 200%, 2s)", "fulljitter(10ms, 2s)"}, 0},
		{"storm_hedge", []string{"storm", "--hedge", "--calls", "20000", "spaced(100ms) & times(2)", "times(2)"}, 0},
		{"storm_hedge_bad_latency", []string{"storm", "--hedge", "--latency", "200ms,20ms", "times(2)"}, 2},
		{"explain_hedge", []string{"explain", "--for", "hedge", "spaced(50ms) & times(3)"}, 0},
		{"lint_hedge", []string{"lint", "--for", "hedge", "times(2)", "spaced(50ms) & times(8)"}, 1},
		{"unknown_command", []string{"frobnicate"}, 2},
		{"help", []string{"--help"}, 0},
		{"simulate_help", []string{"simulate", "--help"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkGolden(t, tt.name, "", tt.args, tt.code) })
	}
}

// checkGolden runs schedcheck with args and stdin and compares its exit
// status and its output, stdout then stderr, with testdata/NAME.golden;
// go test -update rewrites the file.
func checkGolden(t *testing.T, name, stdin string, args []string, wantCode int) {
	t.Helper()
	out, errs, code := schedcheck(t, stdin, args...)
	if code != wantCode {
		t.Errorf("exit status %d; want %d\nstderr:\n%s", code, wantCode, errs)
	}
	got := "$ schedcheck " + strings.Join(quoteAll(args), " ") + "\n" + out
	if errs != "" {
		got += "-- stderr --\n" + errs
	}
	golden := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

func quoteAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, " ()&|%*") {
			a = "'" + a + "'"
		}
		out[i] = a
	}
	return out
}

// TestSimulateJSONMatchesInterp checks the simulate contract for policies
// of every variant against the interpreter itself.
func TestSimulateJSONMatchesInterp(t *testing.T) {
	policies := []string{
		"Times(5)", "Forever", "Spaced(10s)", "Exponential(100ms, 200%, 30s)", "Fibonacci(1s)",
		"Jittered(Exponential(1s, 150%, 1m), 0%, 100%)", "Union(Times(3), Spaced(1s) upto 10s)",
		"Intersect(backoff(100ms, 30s), Times(5))", "AndThen(Times(3), Spaced(60000))", "UpTo(Fibonacci(1s), 1m)",
		"Capped(Fibonacci(1s), 5s)", "Decorrelated(100ms, 10s)", "times(1)",
	}
	for _, p := range policies {
		for _, at := range []time.Duration{0, 1500 * time.Millisecond} {
			s, err := parse.Parse(p)
			if err != nil {
				t.Fatal(err)
			}
			out, errs, code := schedcheck(t, "", "simulate", "--json", p, "--seed", "42", "--attempt-time", at.String(), "--max-attempts", "50")
			if code != 0 {
				t.Fatalf("simulate %q: exit %d: %s", p, code, errs)
			}
			var got simulate.Result
			dec := json.NewDecoder(strings.NewReader(out))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&got); err != nil {
				t.Fatalf("simulate %q: %v in %s", p, err, out)
			}
			if dec.More() {
				t.Errorf("simulate %q printed more than one object", p)
			}
			if diff := cmp.Diff(reference(s, 42, at, 50), got); diff != "" {
				t.Errorf("simulate --json %q --attempt-time %v (-want +got):\n%s", p, at, diff)
			}
		}
	}
}

// reference computes the simulate contract straight from interp.
func reference(s schedule.Schedule, seed uint64, at time.Duration, max int) simulate.Result {
	want := simulate.Result{Policy: s.String(), Seed: seed, DelaysNS: []time.Duration{}}
	r := interp.Start(s, seed)
	var now time.Duration
	for want.Attempts = 1; ; want.Attempts++ {
		start := now
		now = sat.AddDur(now, at)
		d, ok := r.Next(start, now)
		if !ok {
			break
		}
		if want.Attempts == max {
			want.Truncated = true
			break
		}
		want.DelaysNS = append(want.DelaysNS, d)
		now = sat.AddDur(now, d)
	}
	want.ElapsedNS = now
	return want
}

func TestExplainJSON(t *testing.T) {
	out, _, code := schedcheck(t, "", "explain", "--json", "backoff(100ms, 30s) & times(5)")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"policy":       "Intersect(Jittered(Exponential(100ms, 200%, 30s), 50%, 100%), Times(5))",
		"explanation":  "up to 5 attempts; waits grow from 100ms doubling to 30s, each scaled by a random 50–100%; 750ms to 1.5s of waiting in all, then it gives up",
		"max_attempts": 5.0,
		"min_total_ns": 750e6,
		"max_total_ns": 1500e6,
		"stops":        true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("explain --json (-want +got):\n%s", diff)
	}
	out, _, _ = schedcheck(t, "", "explain", "--json", "spaced(1s)")
	json.Unmarshal([]byte(out), &got)
	if got["max_attempts"] != nil || got["max_total_ns"] != nil || got["stops"] != false {
		t.Errorf("explain --json spaced(1s) = %v; want null bounds and stops false", got)
	}
}

func TestCheckJSON(t *testing.T) {
	out, _, code := schedcheck(t, "", "check", "--json", "times(5)", "Times(0)", "times(")
	if code != 1 {
		t.Errorf("exit %d; want 1", code)
	}
	var got []checkResult
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var r checkResult
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	want := []checkResult{
		{Source: "arg 1", Valid: true, Canonical: "Times(5)"},
		{Source: "arg 2", Error: "Times: n 0 is below 1", Line: 1, Column: 7},
		{Source: "arg 3", Error: `unexpected end of input; expected an argument or ")"`, Line: 1, Column: 7},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("check --json (-want +got):\n%s", diff)
	}
}

func TestLintJSON(t *testing.T) {
	out, _, code := schedcheck(t, "", "lint", "--json", "exponential(100ms, 200%, 30s) & times(3)")
	if code != 0 {
		t.Errorf("exit %d; want 0", code)
	}
	want := `{"source":"arg 1","policy":"Intersect(Exponential(100ms, 200%, 30s), Times(3))","findings":[{"id":"no-jitter","severity":"warning","node":"Exponential(100ms, 200%, 30s)","message":"Exponential(100ms, 200%, 30s) has no jitter: clients that failed together retry together, and the retries arrive as one storm; add full jitter","fix":"fulljitter(100ms, 30s) & times(3)"}]}` + "\n"
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("lint --json (-want +got):\n%s", diff)
	}
}

func TestStormJSONMatchesLibrary(t *testing.T) {
	hout, _, hcode := schedcheck(t, "", "storm", "--hedge", "--json", "--calls", "5000", "--seed", "9", "--latency", "10ms,100ms", "spaced(50ms) & times(3)")
	var hgot simulate.HedgeResult
	if err := json.Unmarshal([]byte(hout), &hgot); err != nil || hcode != 0 {
		t.Fatalf("storm --hedge --json: %v, exit %d, output %q", err, hcode, hout)
	}
	hwant, err := simulate.Hedge(context.Background(), schedule.Intersect{A: schedule.Spaced{Every: 50 * time.Millisecond}, B: schedule.Times{N: 3}},
		simulate.Latency{Median: 10 * time.Millisecond, P99: 100 * time.Millisecond}, 5000, 9)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(hwant, hgot); diff != "" {
		t.Errorf("storm --hedge --json (-want +got):\n%s", diff)
	}
	out, _, code := schedcheck(t, "", "storm", "--json", "--clients", "15", "--runs", "5", "--seed", "9", "fulljitter(10ms, 2s)")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var got stormRow
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	r, err := storm.Simulate(context.Background(), schedule.FullJitter(10*time.Millisecond, 2*time.Second), storm.Config{Clients: 15, Runs: 5, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	want := stormRow{Policy: "Jittered(Exponential(10ms, 200%, 2s), 0%, 100%)", Clients: 15, Runs: 5, Calls: r.Calls, TimeNS: int64(r.Time), GaveUp: r.GaveUp}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("storm --json (-want +got):\n%s", diff)
	}
}

func TestPlotFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"p.svg", "p.png"} {
		path := filepath.Join(dir, name)
		_, errs, code := schedcheck(t, "", "plot", "-o", path, "--seeds", "200", "fulljitter(100ms, 10s) & times(8)")
		if code != 0 {
			t.Fatalf("plot -o %s: exit %d: %s", name, code, errs)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		switch filepath.Ext(name) {
		case ".svg":
			if !bytes.HasPrefix(b, []byte("<svg ")) || !bytes.Contains(b, []byte("<polyline")) || !bytes.Contains(b, []byte("Intersect(Jittered(Exponential(100ms, 200%, 10s), 0%, 100%), Times(8))")) {
				t.Errorf("%s does not look like the chart: %.200s", name, b)
			}
		case ".png":
			if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
				t.Errorf("%s is not a PNG", name)
			}
		}
	}
	if _, _, code := schedcheck(t, "", "plot", "-o", filepath.Join(dir, "p.gif"), "times(3)"); code != 2 {
		t.Errorf("plot -o p.gif: exit %d; want 2", code)
	}
}

func TestFmtRoundTrips(t *testing.T) {
	for _, p := range []string{"backoff(100, 30000) & times(5)", "times(3) then spaced(1m) upto 1h", "decorrelated(5ms, 2s) | fibonacci(1s)"} {
		for _, style := range [][]string{nil, {"--infix"}, {"--simplify"}} {
			out, _, code := schedcheck(t, "", append(append([]string{"fmt"}, style...), p)...)
			if code != 0 {
				t.Fatalf("fmt %v %q: exit %d", style, p, code)
			}
			s, err := parse.Parse(strings.TrimSpace(out))
			if err != nil {
				t.Fatalf("fmt %v %q printed %q, which does not parse: %v", style, p, out, err)
			}
			orig, _ := parse.Parse(p)
			if style == nil || style[0] == "--infix" {
				if s != orig {
					t.Errorf("fmt %v %q = %q; parses to %v, want %v", style, p, out, s, orig)
				}
			}
		}
	}
}

func TestStdin(t *testing.T) {
	out, _, code := schedcheck(t, "times(2) # two\n& spaced(1s)\n", "check", "-f", "-")
	if code != 0 || out != "-: ok: Intersect(Times(2), Spaced(1s))\n" {
		t.Errorf("check -f - = %q, exit %d", out, code)
	}
}
