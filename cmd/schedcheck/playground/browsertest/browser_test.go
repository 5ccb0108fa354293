package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/cmd/schedcheck/playground"
	"github.com/recur-go/recur/cmd/schedcheck/playground/engine"
	"github.com/recur-go/recur/explain"
	"github.com/recur-go/recur/parse"
)

// env is what TestMain starts for every test: schedcheck serve and one
// browser, each test in a tab of its own.
var env struct {
	srv     *Server
	browser context.Context
	skip    string // why the browser tests skip, if they do
}

func TestMain(m *testing.M) {
	code := func() int {
		path, err := Chromium()
		if err != nil {
			if os.Getenv("CI") == "true" {
				fmt.Fprintln(os.Stderr, "browsertest:", err)
				return 1
			}
			env.skip = err.Error()
			return m.Run()
		}
		dir, err := os.MkdirTemp("", "browsertest")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		srv, err := Serve(context.Background(), dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "browsertest:", err)
			return 1
		}
		defer srv.Stop()
		env.srv = srv
		bctx, cancel := Browser(context.Background(), path, filepath.Join(dir, "profile"))
		defer cancel()
		if err := chromedp.Do(bctx); err != nil {
			fmt.Fprintln(os.Stderr, "browsertest: starting", path+":", err)
			return 1
		}
		env.browser = bctx
		return m.Run()
	}()
	os.Exit(code)
}

// page opens the playground in a new tab with policy in the URL fragment
// (none when ""), waits for the first result and, when the test ends,
// checks that the page logged no error and requested nothing but the
// server's files.
func page(t *testing.T, policy string) context.Context {
	t.Helper()
	if env.skip != "" {
		t.Skip(env.skip)
	}
	tctx, cancel, w, err := NewTab(env.browser)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancelTimeout := context.WithTimeout(tctx, 90*time.Second)
	t.Cleanup(func() {
		cancelTimeout()
		cancel()
		if errs := w.Errors(); len(errs) > 0 {
			t.Errorf("the console has errors:\n%s", strings.Join(errs, "\n"))
		}
		for _, u := range w.Requests() {
			if !strings.HasPrefix(u, env.srv.URL) && !strings.HasPrefix(u, "data:") {
				t.Errorf("the page requested %s, outside %s", u, env.srv.URL)
			}
		}
	})
	u := env.srv.URL
	if policy != "" {
		u += "#p=" + url.PathEscape(policy)
	}
	do(t, ctx, chromedp.Navigate(u),
		chromedp.Poll[chromedp.Void](`window.recurMetrics && window.recurMetrics.firstResult !== null`, chromedp.WithPollingTimeout(60*time.Second)))
	return ctx
}

func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

func text(t *testing.T, ctx context.Context, id string) string {
	t.Helper()
	return eval[string](t, ctx, `document.getElementById(`+quote(id)+`).textContent`)
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// typePolicy replaces the policy by typing it key by key.
func typePolicy(t *testing.T, ctx context.Context, policy string) {
	t.Helper()
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById("policy").value = ""`), chromedp.SendKeys(chromedp.ID("policy"), policy))
}

// TestTypeAndExplain: a typed policy is explained as package explain
// explains it, with its canonical and infix forms.
func TestTypeAndExplain(t *testing.T) {
	ctx := page(t, "")
	const src = "fulljitter(200ms, 5s) & times(4)"
	typePolicy(t, ctx, src)
	s, err := parse.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{explain.Explain(s).Explanation, s.String(), parse.Format(s, parse.Infix), "Valid policy."}
	got := []string{text(t, ctx, "explanation"), text(t, ctx, "canonical"), text(t, ctx, "infix"), text(t, ctx, "status")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("explanation, canonical, infix, status (-want +got):\n%s", diff)
	}
}

// TestPointsEqualSimulate: the plotted points of the seeded run are the
// delays of schedcheck simulate --json --seed for the same policy, and
// hovering a point shows its attempt, delay and elapsed time.
func TestPointsEqualSimulate(t *testing.T) {
	const src = "fulljitter(100ms, 10s) & times(9)"
	ctx := page(t, src)
	do(t, ctx, chromedp.SetValue(chromedp.ID("seed"), "7"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("seed").dispatchEvent(new Event("input"))`))
	out, err := exec.Command(env.srv.Bin, "simulate", "--json", "--seed", "7", src).Output()
	if err != nil {
		t.Fatalf("schedcheck simulate: %v", err)
	}
	var sim struct {
		DelaysNS []int64 `json:"delays_ns"`
	}
	if err := json.Unmarshal(out, &sim); err != nil {
		t.Fatal(err)
	}
	got := eval[[]int64](t, ctx, `[...document.querySelectorAll("#plot circle.point")].map(c => Number(c.dataset.delayNs))`)
	if diff := cmp.Diff(sim.DelaysNS, got); diff != "" {
		t.Errorf("plotted delays (-simulate +page):\n%s", diff)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#plot polygon.band").length`); n != 1 {
		t.Errorf("%d bands drawn for a jittered policy, want 1", n)
	}
	x := eval[[]float64](t, ctx, `(() => { const c = document.querySelector("#plot circle.point:nth-of-type(1)"); c.scrollIntoView({block: "center"}); const r = c.getBoundingClientRect(); return [r.x + r.width/2, r.y + r.height/2]; })()`)
	do(t, ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x[0], x[1]))
	tip := text(t, ctx, "tip")
	want := fmt.Sprintf("attempt 2: delay %s", eval[string](t, ctx, fmt.Sprintf("fmtDur(%d)", sim.DelaysNS[0])))
	if !strings.HasPrefix(tip, want) || !strings.Contains(tip, "elapsed") {
		t.Errorf("hover shows %q, want it to start with %q and give the elapsed time", tip, want)
	}
}

// TestZeroDelayChart: the chart of a policy that never waits labels its
// delay axis with distinct durations (it once read 1ns, 1ns, 1ns, 0s, 0s),
// numbers its points by attempt (2 to 5, as the CLI's plot does), and its
// axis titles clear the top tick labels.
func TestZeroDelayChart(t *testing.T) {
	ctx := page(t, "times(5)")
	ticks := eval[[]string](t, ctx, `[...document.querySelectorAll('#plot svg > text[text-anchor="end"]:not(.cum)')].map(e => e.textContent)`)
	seen := map[string]bool{}
	for _, tk := range ticks {
		if seen[tk] {
			t.Errorf("delay axis labels %v repeat %q", ticks, tk)
		}
		seen[tk] = true
	}
	if len(ticks) != 5 {
		t.Errorf("delay axis labels %v, want 5", ticks)
	}
	attempts := eval[[]string](t, ctx, `[...document.querySelectorAll("#plot circle.point")].map(c => c.dataset.attempt)`)
	if diff := cmp.Diff([]string{"2", "3", "4", "5"}, attempts); diff != "" {
		t.Errorf("points' attempts (-want +got):\n%s", diff)
	}
	overlap := eval[bool](t, ctx, `(() => {
		const titles = [...document.querySelectorAll("#plot svg text.axis-title")].map(e => e.getBBox());
		const top = [...document.querySelectorAll('#plot svg > text[text-anchor="end"]:not(.cum)')][0].getBBox();
		return titles.length !== 2 || titles.some(b => b.y + b.height > top.y);
	})()`)
	if overlap {
		t.Error("an axis title overlaps the top tick label, or one is missing")
	}
}

// TestExamples: each example of the picker, a construct of the language
// each, is a valid policy that the page explains as package explain does.
func TestExamples(t *testing.T) {
	ctx := page(t, "")
	values := eval[[]string](t, ctx, `[...document.querySelectorAll("#examples option")].map(o => o.value).filter(v => v)`)
	if len(values) < 8 {
		t.Fatalf("%d examples, want one per construct", len(values))
	}
	for i, v := range values {
		s, err := parse.Parse(v)
		if err != nil {
			t.Errorf("example %q: %v", v, err)
			continue
		}
		do(t, ctx, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const e = document.getElementById("examples"); e.selectedIndex = %d; e.dispatchEvent(new Event("change")); })()`, i+1)))
		got := []string{text(t, ctx, "status"), text(t, ctx, "explanation")}
		want := []string{"Valid policy.", explain.Explain(s).Explanation}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("example %q: status, explanation (-want +got):\n%s", v, diff)
		}
	}
}

// TestErrorCaret: an invalid policy shows line:column, a caret under the
// spot and the suggestion.
func TestErrorCaret(t *testing.T) {
	ctx := page(t, "")
	typePolicy(t, ctx, "backoff(100ms, 30s) & tims(5)")
	msg, caret := text(t, ctx, "error-msg"), text(t, ctx, "caret")
	if !strings.HasPrefix(msg, "1:23: ") || !strings.Contains(msg, `did you mean "Times"`) {
		t.Errorf("error message %q, want 1:23 and did you mean \"Times\"", msg)
	}
	want := "backoff(100ms, 30s) & tims(5)\n" + strings.Repeat(" ", 22) + "^"
	if caret != want {
		t.Errorf("caret:\n%s\nwant:\n%s", caret, want)
	}
	shown := eval[[]bool](t, ctx, `["error", "forms"].map(id => document.getElementById(id).offsetParent !== null)`)
	if diff := cmp.Diff([]bool{true, false}, shown); diff != "" {
		t.Errorf("error and forms shown (-want +got):\n%s", diff)
	}
}

// TestLintFix: a fix button, pressed from the keyboard, rewrites the
// policy and the finding goes away.
func TestLintFix(t *testing.T) {
	ctx := page(t, "exponential(100ms, 200%, 30s) & times(3)")
	sel := `#findings li[data-rule="no-jitter"] button.fix`
	if n := eval[int](t, ctx, `document.querySelectorAll(`+quote(sel)+`).length`); n != 1 {
		t.Fatalf("%d fix buttons for no-jitter, want 1; findings: %s", n, text(t, ctx, "findings"))
	}
	do(t, ctx, chromedp.Focus(chromedp.CSS(sel)), chromedp.KeyEvent(kb.Enter))
	policy, err := chromedp.Run(ctx, chromedp.Value(chromedp.ID("policy")))
	if err != nil {
		t.Fatal(err)
	}
	if policy == "exponential(100ms, 200%, 30s) & times(3)" {
		t.Fatal("the fix did not rewrite the policy")
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#findings li[data-rule="no-jitter"]').length`); n != 0 {
		t.Errorf("after the fix %q the finding is still there", policy)
	}
	if focused := eval[string](t, ctx, `document.activeElement.id`); focused != "policy" {
		t.Errorf("after the fix the focus is on %q, want the policy", focused)
	}
}

// TestHedge: the page reads the policy as a hedging policy too, as
// package explain and package engine do, and a hedge finding's fix button
// rewrites the policy.
func TestHedge(t *testing.T) {
	const src = "times(2)"
	ctx := page(t, src)
	a := engine.Analyze(src, 1)
	want := []string{a.Hedge.Explanation}
	got := []string{text(t, ctx, "hedge-explanation")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hedge explanation (-want +got):\n%s", diff)
	}
	if load := text(t, ctx, "hedge-load"); !strings.Contains(load, "+100.0% load") {
		t.Errorf("hedge load %q, want +100.0%% for two copies at once", load)
	}
	sel := `#hedge-findings li[data-rule="hedge-no-delay"] button.fix`
	if n := eval[int](t, ctx, `document.querySelectorAll(`+quote(sel)+`).length`); n != 1 {
		t.Fatalf("%d fix buttons for hedge-no-delay, want 1; hedge findings: %s", n, text(t, ctx, "hedge-findings"))
	}
	do(t, ctx, chromedp.Focus(chromedp.CSS(sel)), chromedp.KeyEvent(kb.Enter))
	if n := eval[int](t, ctx, `document.querySelectorAll('#hedge-findings li[data-rule="hedge-no-delay"]').length`); n != 0 {
		t.Errorf("after the fix the hedge finding is still there: %s", text(t, ctx, "hedge-findings"))
	}
}

// TestSharedURL: the URL of a page restores the same policy and result.
func TestSharedURL(t *testing.T) {
	ctx := page(t, "")
	typePolicy(t, ctx, "spaced(1s) & times(3) upto 10s")
	href, err := chromedp.Run(ctx, chromedp.Poll[string](`location.hash === "#p=" + encodeURIComponent(document.getElementById("policy").value) && location.href`,
		chromedp.WithPollingTimeout(10*time.Second)))
	if err != nil {
		t.Fatalf("the URL does not follow the policy: %v", err)
	}
	if !strings.Contains(href, "#p=") {
		t.Fatalf("URL %s has no #p=", href)
	}
	first := []string{text(t, ctx, "canonical"), text(t, ctx, "explanation"), text(t, ctx, "findings")}
	ctx2 := page(t, "")
	do(t, ctx2, chromedp.Navigate(href), chromedp.Reload(),
		chromedp.Poll[chromedp.Void](`window.recurMetrics && window.recurMetrics.firstResult !== null`))
	second := []string{text(t, ctx2, "canonical"), text(t, ctx2, "explanation"), text(t, ctx2, "findings")}
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("the shared URL shows (-original +shared):\n%s", diff)
	}
	if v := eval[string](t, ctx2, `document.getElementById("policy").value`); v != "spaced(1s) & times(3) upto 10s" {
		t.Errorf("policy %q after opening the shared URL", v)
	}
}

// TestStorm: the storm runs in a worker, shows its progress, and gives a
// row per policy.
func TestStorm(t *testing.T) {
	ctx := page(t, "")
	do(t, ctx, chromedp.SetValue(chromedp.ID("storm-runs"), "5"), chromedp.SetValue(chromedp.ID("storm-clients"), "20"),
		chromedp.Click(chromedp.ID("storm-run")),
		chromedp.Poll[chromedp.Void](`document.getElementById("storm-msg").textContent.startsWith("Done")`, chromedp.WithPollingTimeout(60*time.Second)))
	rows := eval[[]string](t, ctx, `[...document.querySelectorAll("#storm-table tbody tr td:first-child")].map(td => td.textContent)`)
	want := []string{"exponential(10ms, 200%, 2s)", "fulljitter(10ms, 2s)", "backoff(10ms, 2s)", "decorrelated(5ms, 2s)"}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("storm rows (-want +got):\n%s", diff)
	}
	if p := eval[float64](t, ctx, `document.getElementById("storm-progress").value`); p != 1 {
		t.Errorf("progress %v at the end, want 1", p)
	}
}

// TestGRPC: the policy's retryPolicy is shown, and a retryPolicy reads
// back as a policy.
func TestGRPC(t *testing.T) {
	ctx := page(t, "fulljitter(250ms, 5s) & times(3)")
	if out := text(t, ctx, "grpc-out"); !strings.Contains(out, `"maxAttempts": 3`) || !strings.Contains(out, `"initialBackoff": "0.250s"`) {
		t.Errorf("gRPC form %q", out)
	}
	do(t, ctx, chromedp.Click(chromedp.ID("grpc-import")))
	if v := eval[string](t, ctx, `document.getElementById("policy").value`); v != "fulljitter(100ms, 1s) & times(4)" {
		t.Errorf("imported policy %q", v)
	}
}

// TestProgram: the program the page runs is this tree's: serve's
// recur.wasm equals, byte for byte, a build of this tree by
// playground.Builder (what serve runs) into a fresh cache folder, and its
// wasm_exec.js is the toolchain's.
func TestProgram(t *testing.T) {
	if env.skip != "" {
		t.Skip(env.skip)
	}
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	b := &playground.Builder{CacheDir: t.TempDir()}
	src, err := b.FindSource(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "cmd", "schedcheck"); src.Dir != want || src.Version != "" {
		t.Errorf("FindSource = %+v, want the working tree's %s", src, want)
	}
	start := time.Now()
	built, err := b.Build(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("built the program (%d bytes) in %v", len(built.Wasm), time.Since(start).Round(time.Millisecond))
	served := map[string][]byte{}
	for _, name := range []string{"recur.wasm", "wasm_exec.js"} {
		resp, err := http.Get(env.srv.URL + name)
		if err != nil {
			t.Fatal(err)
		}
		served[name], err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d, %v", name, resp.StatusCode, err)
		}
	}
	if !bytes.Equal(served["recur.wasm"], built.Wasm) {
		t.Errorf("serve's recur.wasm (%d bytes) differs from this tree's (%d bytes)", len(served["recur.wasm"]), len(built.Wasm))
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(served["wasm_exec.js"], want) || !bytes.Equal(built.Exec, want) {
		t.Error("serve's wasm_exec.js differs from the Go toolchain's")
	}
}

// TestLabelled: every control has a label, and Tab reaches the policy,
// the seed and the storm's button.
func TestLabelled(t *testing.T) {
	ctx := page(t, "")
	unlabelled := eval[[]string](t, ctx, `[...document.querySelectorAll("input, textarea, select, button")]
		.filter(e => !(e.labels && e.labels.length) && !e.getAttribute("aria-label") && !e.textContent.trim())
		.map(e => e.id || e.outerHTML)`)
	if len(unlabelled) > 0 {
		t.Errorf("controls without a label: %q", unlabelled)
	}
	var reached []string
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.activeElement.blur()`))
	for range 40 {
		do(t, ctx, chromedp.KeyEvent(kb.Tab))
		reached = append(reached, eval[string](t, ctx, `document.activeElement.id || document.activeElement.tagName`))
	}
	for _, id := range []string{"policy", "seed", "storm-run", "grpc-import"} {
		if !slices.Contains(reached, id) {
			t.Errorf("Tab never reaches #%s; it reaches %q", id, reached)
		}
	}
}
