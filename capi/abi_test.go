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
	"unsafe"

	"github.com/recur-go/recur/breaker"
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
		"RECUR_MAX_HANDLES":        maxSlots,
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

// obj returns a distinct object pointer for the table tests.
func obj(v int) unsafe.Pointer { return unsafe.Pointer(&v) }

func TestHandles(t *testing.T) {
	var tab table
	pa, pb, pc := obj(1), obj(2), obj(3)
	a, _ := tab.put(kindPolicy, pa)
	b, _ := tab.put(kindRun, pb)
	if tab.get(a, kindPolicy) != pa || tab.get(b, kindRun) != pb {
		t.Fatal("lookup")
	}
	if tab.get(a, kindRun) != nil || tab.get(0, kindPolicy) != nil || tab.get(a^1<<indexBits, kindPolicy) != nil {
		t.Error("a handle of another kind, 0 or another generation was found")
	}
	if o, k := tab.del(a); o != pa || k != kindPolicy {
		t.Error("delete")
	}
	if o, _ := tab.del(a); o != nil || tab.get(a, kindPolicy) != nil {
		t.Error("a deleted handle")
	}
	c, _ := tab.put(kindPolicy, pc) // reuses a's slot
	if c&(maxSlots-1) != a&(maxSlots-1) || c == a {
		t.Errorf("handle %x after %x: the slot was not reused with a new generation", c, a)
	}
	if tab.get(a, kindPolicy) != nil || tab.get(c, kindPolicy) != pc {
		t.Error("a stale handle reached its slot's new object")
	}
	if n := tab.count(); n != 2 {
		t.Errorf("count %d", n)
	}
	// A handle in a chunk never made.
	if tab.get(uint64(1)<<indexBits|(maxSlots-1), kindPolicy) != nil {
		t.Error("found a handle in an unmade chunk")
	}
}

func TestHandlesFull(t *testing.T) {
	var tab table
	tab.used = maxSlots
	if _, ok := tab.put(kindPolicy, obj(1)); ok {
		t.Error("put past maxSlots")
	}
	tab.free = append(tab.free, 5)
	tab.chunks[0].Store(new([chunkSize]slot))
	if h, ok := tab.put(kindPolicy, obj(1)); !ok || h&(maxSlots-1) != 5 {
		t.Errorf("put into a freed slot of a full table: %x %v", h, ok)
	}
}

func TestHandlesGenerationWraps(t *testing.T) {
	var tab table
	h, _ := tab.put(kindPolicy, obj(1))
	tab.del(h)
	tab.chunks[0].Load()[0].gen = genMask - 1 // the next is the last generation
	h2, _ := tab.put(kindPolicy, obj(2))
	if h2>>indexBits != genMask {
		t.Fatalf("generation %x", h2>>indexBits)
	}
	tab.del(h2)
	p3 := obj(3)
	h3, _ := tab.put(kindPolicy, p3)
	if h3>>indexBits != 1 || tab.get(h3, kindPolicy) != p3 {
		t.Errorf("after the last generation: %x", h3)
	}
}

// TestHandlesConcurrent puts, gets and deletes from many goroutines,
// while others look up handles as they are closed and reused: run with
// -race. A lookup finds its own object or nothing.
func TestHandlesConcurrent(t *testing.T) {
	var tab table
	var wg sync.WaitGroup
	var recent [8]atomic.Uint64
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				v := g*10000 + i
				h, ok := tab.put(kindRun, unsafe.Pointer(&v))
				if !ok {
					t.Error("full")
					return
				}
				recent[g].Store(h)
				if p := tab.get(h, kindRun); p == nil || *(*int)(p) != v {
					t.Error("lost a handle")
					return
				}
				if o, _ := tab.del(h); o == nil || tab.get(h, kindRun) != nil {
					t.Error("delete")
					return
				}
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for range 20000 {
				for g := range recent {
					h := recent[g].Load()
					if p := tab.get(h, kindRun); p != nil && *(*int)(p)/10000 != g {
						t.Error("a lookup found another handle's object")
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if n := tab.count(); n != 0 {
		t.Errorf("%d handles left", n)
	}
}
