package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/capi/internal/handle"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/verdict"
)

// TestEveryExportRecovers checks that every function exported to C
// defers recovered or recoveredErr first, into its named result rc, so
// that no panic crosses into C.
func TestEveryExportRecovers(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Doc == nil || !strings.HasPrefix(fn.Doc.List[len(fn.Doc.List)-1].Text, "//export ") {
				continue
			}
			n++
			res := fn.Type.Results
			if res == nil || len(res.List) != 1 || len(res.List[0].Names) != 1 || res.List[0].Names[0].Name != "rc" {
				t.Errorf("%s: %s does not return a named rc", fset.Position(fn.Pos()), fn.Name.Name)
				continue
			}
			first, ok := fn.Body.List[0].(*ast.DeferStmt)
			if !ok {
				t.Errorf("%s: %s does not begin with a defer", fset.Position(fn.Pos()), fn.Name.Name)
				continue
			}
			callee, _ := first.Call.Fun.(*ast.Ident)
			if callee == nil || (callee.Name != "recovered" && callee.Name != "recoveredErr") {
				t.Errorf("%s: %s defers something other than recovered first", fset.Position(fn.Pos()), fn.Name.Name)
			}
		}
	}
	if n < 15 {
		t.Errorf("found only %d exported functions", n)
	}
}

// defines returns the integer #defines of recur.h.
func defines(t *testing.T) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	re := regexp.MustCompile(`(?m)^#define (RECUR_\w+) \(?(-?\d+)u?\)?`)
	for _, m := range re.FindAllStringSubmatch(readFile(t, "recur.h"), -1) {
		v, err := strconv.ParseInt(m[2], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		out[m[1]] = v
	}
	return out
}

// TestHeaderMirrorsGo checks that the numbers of recur.h are those of the
// Go packages they mirror.
func TestHeaderMirrorsGo(t *testing.T) {
	d := defines(t)
	want := map[string]int64{
		"RECUR_SUCCESS":            int64(verdict.Success),
		"RECUR_TRANSIENT":          int64(verdict.Transient),
		"RECUR_RETRYABLE":          int64(verdict.Retryable),
		"RECUR_FAILURE":            int64(verdict.Failure),
		"RECUR_NEUTRAL":            int64(verdict.Neutral),
		"RECUR_STATE_CLOSED":       int64(breaker.Closed),
		"RECUR_STATE_HALF_OPEN":    int64(breaker.HalfOpen),
		"RECUR_STATE_OPEN":         int64(breaker.Open),
		"RECUR_STATE_FORCED_OPEN":  int64(breaker.ForcedOpen),
		"RECUR_STATE_DISABLED":     int64(breaker.Disabled),
		"RECUR_STATE_METRICS_ONLY": int64(breaker.MetricsOnly),
		"RECUR_CANONICAL":          int64(parse.Canonical),
		"RECUR_INFIX":              int64(parse.Infix),
		"RECUR_MAX_POLICY":         parse.MaxLen,
		"RECUR_MAX_HANDLES":        handle.Max,
		"RECUR_STOP":               -1,
		"RECUR_OK":                 0,
	}
	for name, v := range want {
		if got, ok := d[name]; !ok || got != v {
			t.Errorf("recur.h: %s = %d (defined: %v), want %d", name, got, ok, v)
		}
	}
	// The error codes run from 0 to RECUR_E_INTERNAL without a gap, so
	// that a binding can list them.
	var codes []int64
	for name, v := range d {
		if strings.HasPrefix(name, "RECUR_E_") {
			codes = append(codes, v)
		}
	}
	slices.Sort(codes)
	for i, c := range codes {
		if c != int64(i+1) {
			t.Fatalf("error codes %v are not 1 to %d", codes, len(codes))
		}
	}
	if d["RECUR_E_INTERNAL"] != int64(len(codes)) {
		t.Errorf("RECUR_E_INTERNAL = %d is not the last code", d["RECUR_E_INTERNAL"])
	}
}

// TestDelayPinned checks recur_policy_delay's definition against
// package interp: the attempt-th wait of interp.Delays, with the values
// the C test pins.
func TestDelayPinned(t *testing.T) {
	p, f := parsePolicy("fulljitter(100ms, 2s) & times(3)")
	if f != nil {
		t.Fatal(f.msg)
	}
	if got := []int64{p.delay(1, 42), p.delay(2, 42), p.delay(3, 42)}; !slices.Equal(got, []int64{39175395, 16518473, -1}) {
		t.Errorf("delays %v", got)
	}
	for _, src := range []string{"backoff(100ms, 30s) & times(8)", "decorrelated(10ms, 1s) & times(20)", "spaced(1s) upto 5s", "times(2) then fulljitter(1s, 1m) & times(4)"} {
		p, f := parsePolicy(src)
		if f != nil {
			t.Fatal(f.msg)
		}
		for _, seed := range []uint64{0, 1, 42, 1 << 63} {
			attempt := int64(1)
			for d := range interp.Delays(p.s, seed) {
				if got := p.delay(attempt, seed); got != int64(d) {
					t.Fatalf("%s seed %d attempt %d: delay %d, interp %d", src, seed, attempt, got, d)
				}
				attempt++
			}
			if got := p.delay(attempt, seed); got != -1 {
				t.Errorf("%s seed %d attempt %d: delay %d after the end", src, seed, attempt, got)
			}
		}
	}
}

// TestDelayAllocs checks that a warm delay allocates nothing.
func TestDelayAllocs(t *testing.T) {
	p, _ := parsePolicy("fulljitter(100ms, 2s) & times(5)")
	p.delay(3, 1)
	if n := testing.AllocsPerRun(1000, func() { p.delay(3, 7) }); n > 0 {
		t.Errorf("delay allocates %.1f times", n)
	}
}

// TestExportsConcurrent calls the exported functions from many
// goroutines at once, on one shared policy and guard, while others close
// the calls and runs being used: the Go side of the C test's threads, so
// that go test -race sees the same code (a library built with -race
// cannot be loaded by a C program).
func TestExportsConcurrent(t *testing.T) {
	src := newCString("fulljitter(1ms, 10ms) & times(3)")
	defer freeCString(src)
	cfg := newCString(`{"retry": "spaced(1ms) & times(3)", "breaker": {}, "budget": {"kind": "token_bucket"}}`)
	defer freeCString(cfg)
	var p, g cHandle
	if recur_policy_parse(src, &p, nil) != rcOK || recur_guard_new(cfg, &g, nil) != rcOK {
		t.Fatal("setup")
	}
	defer recur_close(p)
	defer recur_close(g)
	var shared [4]atomic.Uint64 // handles that other goroutines close
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 500 {
				var d cInt64
				if recur_policy_delay(p, cInt64(1+i%3), cUint64(i), &d) != rcOK {
					t.Error("delay")
					return
				}
				var c, r cHandle
				if recur_guard_allow(g, 1, &c) != rcOK || recur_run_start(p, cUint64(i), &r) != rcOK {
					t.Error("allow or start")
					return
				}
				shared[w].Store(uint64(c))
				// Another goroutine may close c meanwhile: stale, never a crash.
				if rc := recur_call_record(c, 2, &d, nil); rc != rcOK && rc != eHandle { // retryable: the breaker counts nothing
					t.Errorf("record: %d", rc)
				}
				if rc := recur_call_allow(c); rc != rcOK && rc != eHandle && rc != eOrder {
					t.Errorf("allow: %d", rc)
				}
				if rc := recur_close(c); rc != rcOK && rc != eHandle {
					t.Errorf("close: %d", rc)
				}
				recur_run_next(r, 0, 0, &d)
				recur_close(r)
			}
		})
	}
	wg.Go(func() {
		for range 2000 {
			for i := range shared {
				recur_close(cHandle(shared[i].Load()))
			}
		}
	})
	wg.Wait()
	if n := handles.Count(); n != 2 {
		t.Errorf("%d handles open, want the policy and the guard", n)
	}
}
