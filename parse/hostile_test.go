package parse_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

// nest wraps inner in n calls of Capped(…, 1s).
func nest(n int, inner string) string {
	return strings.Repeat("Capped(", n) + inner + strings.Repeat(", 1s)", n)
}

// TestHostileInput checks that input built to exhaust the parser ends in a
// clear error. Speed is not asserted here: BenchmarkHostile measures it.
func TestHostileInput(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"1 MB of (", strings.Repeat("(", 1<<20),
			"1:65537: policy is 1048576 bytes long; the limit is 65536"},
		{"100k-deep nesting", nest(100_000, "Forever"),
			"1:65537: policy is 1200007 bytes long; the limit is 65536"},
		{"100k-deep parentheses", strings.Repeat("(", 100_000) + "Forever" + strings.Repeat(")", 100_000),
			"1:65537: policy is 200007 bytes long; the limit is 65536"},
		{"one byte too long", "Forever" + strings.Repeat(" ", parse.MaxLen-6),
			"1:65537: policy is 65537 bytes long; the limit is 65536"},
		{"64 KiB of (", strings.Repeat("(", parse.MaxLen),
			"1:65: policy nests deeper than 64 levels"},
		{"30k-deep parentheses", strings.Repeat("(", 30_000) + "Forever" + strings.Repeat(")", 30_000),
			"1:65: policy nests deeper than 64 levels"},
		{"calls one too deep", nest(parse.MaxDepth+1, "Forever"),
			"1:455: policy nests deeper than 64 levels"},
		{"& chain too deep", strings.Repeat("Forever & ", 1000) + "Forever",
			"1:639: policy nests deeper than 64 levels"},
		{"| chain too deep", strings.Repeat("Forever | ", 1000) + "Forever",
			"1:639: policy nests deeper than 64 levels"},
		{"then chain too deep", strings.Repeat("Forever then ", 1000) + "Forever",
			"1:12177: policy nests deeper than 64 levels"},
		{"helpers count as two levels", nest(parse.MaxDepth-1, "backoff(1s, 2s)"),
			"1:1: policy nests deeper than 64 levels"},
		{"2000 arguments", "Times(" + strings.Repeat("1, ", 2000) + "1)",
			"1:1: Times takes (n); got 2001 arguments"},
		{"20k arguments", "Times(" + strings.Repeat("1, ", 20_000) + "1)",
			"1:6148: policy has more than 4096 tokens"},
		{"6000 operators", strings.Repeat("Forever & ", 6000) + "Forever",
			"1:20481: policy has more than 4096 tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse.Parse(tt.src)
			if err == nil {
				t.Fatal("Parse succeeded, want an error")
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			var p parse.Policy
			if err := p.UnmarshalText([]byte(tt.src)); err == nil || err.Error() != tt.want {
				t.Errorf("UnmarshalText error = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestLongTokens checks that an error quotes at most parse.MaxQuoted
// characters of a 60 KB token, whatever the path that reports it.
func TestLongTokens(t *testing.T) {
	const n = 60_000
	var (
		name   = strings.Repeat("x", n)
		nines  = strings.Repeat("9", n)
		cut    = func(s string) string { return s[:parse.MaxQuoted] + "…" }
		cutRep = func(c string) string { return cut(strings.Repeat(c, n)) }
	)
	tests := []struct{ name, src, want string }{
		{"identifier", name + "(3)", `1:1: unknown name "` + cutRep("x") + `"`},
		{"unexpected name", "Times(3) " + name, `1:10: unexpected "` + cutRep("x") + `"; expected an operator or end of input`},
		{"parameter name", "Times(" + name + "=3)", `1:7: Times has no parameter "` + cutRep("x") + `"`},
		{"unexpected parameter name", name + "=3", `1:1: unexpected parameter name "` + cutRep("x") + `"; expected a policy`},
		{"integer", "Times(" + nines + ")", "1:7: integer " + cut(nines) + " is out of range"},
		{"invalid integer", "Times(-" + nines + "x)", "1:7: Times: n wants an integer, got " + cut("-"+nines)},
		{"percentage", "Jittered(Forever, " + nines + "%, 100%)", "1:19: percentage " + cut(nines) + " is out of range"},
		{"milliseconds", "Spaced(" + nines + ")", "1:8: duration " + cut(nines) + " (milliseconds) is out of range"},
		{"duration", "Spaced(" + nines + "s)", "1:8: duration " + cut(nines) + " is out of range"},
		{"duration unit", "Spaced(1" + name + ")", `1:8: unknown unit "` + cutRep("x") + `" in duration "1` + cutRep("x")[:parse.MaxQuoted-1] + `…"`},
		{"missing unit", "Spaced(1." + nines + ")", `1:8: missing unit in duration "1.` + cut(nines)[:parse.MaxQuoted-2] + `…"`},
		{"invalid duration", "Spaced(" + strings.Repeat("1s.", n/3) + ")", `1:8: invalid duration "` + cut(strings.Repeat("1s.", n/3)) + `"`},
		{"upto", "Forever upto " + nines + "%", "1:14: upto wants a duration, got " + cut(nines)},
		{"wrong kind", "Spaced(" + nines + "%)", "1:8: Spaced: every wants a duration, got " + cut(nines)},
		{"multi-byte characters", "Spaced(1" + strings.Repeat("µ", n/2) + ")", `1:8: unknown unit "` + strings.Repeat("µ", parse.MaxQuoted) + `…" in duration "1` + strings.Repeat("µ", parse.MaxQuoted-1) + `…"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse.Parse(tt.src)
			if err == nil {
				t.Fatal("Parse succeeded, want an error")
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if len(err.Error()) > 200 {
				t.Errorf("error is %d bytes long", len(err.Error()))
			}
		})
	}
}

// TestByteOrderMark checks that a UTF-8 byte order mark at the start is
// skipped, by Parse and UnmarshalText, and that positions count from after
// it, as an editor shows them.
func TestByteOrderMark(t *testing.T) {
	const bom = "\uFEFF"
	got, err := parse.Parse(bom + "backoff(100ms, 30s) & times(5)")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantRetry.Schedule, got); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
	var p parse.Policy
	if err := p.UnmarshalText([]byte(bom + "backoff(100ms, 30s) & times(5)")); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantRetry, p); diff != "" {
		t.Errorf("UnmarshalText (-want +got):\n%s", diff)
	}
	_, err = parse.Parse(bom + "times(0)")
	if diff := cmp.Diff("1:7: Times: n 0 is below 1", fmt.Sprint(err)); diff != "" {
		t.Errorf("error after a BOM (-want +got):\n%s", diff)
	}
	// Only at the start: elsewhere it is a character like any other.
	_, err = parse.Parse("times(1) " + bom)
	if diff := cmp.Diff(`1:10: unexpected character "\ufeff"`, fmt.Sprint(err)); diff != "" {
		t.Errorf("BOM inside (-want +got):\n%s", diff)
	}
}

// TestLimitsAreReachable checks that input right at the limits parses.
func TestLimitsAreReachable(t *testing.T) {
	var deep schedule.Schedule = schedule.Forever{}
	for range parse.MaxDepth - 1 {
		deep = schedule.Capped{Inner: deep, Max: 1e9}
	}
	wide := balanced(1024) // 1024 leaves, 11 levels
	tests := []struct {
		name string
		src  string
		want schedule.Schedule
	}{
		{"1024 leaves in infix form", parse.Format(wide, parse.Infix), wide},
		{"canonical form of 511 nodes", balanced(256).String(), balanced(256)},
		{"MaxLen bytes", "Forever" + strings.Repeat(" ", parse.MaxLen-7), schedule.Forever{}},
		{"MaxDepth levels", nest(parse.MaxDepth-1, "Forever"), deep},
		{"MaxDepth parentheses", strings.Repeat("(", parse.MaxDepth) + "Forever" + strings.Repeat(")", parse.MaxDepth), schedule.Forever{}},
		{"canonical form at MaxDepth", deep.String(), deep},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parse.Parse(tt.src)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// balanced returns an Intersect tree of n Forever leaves, n a power of 2.
func balanced(n int) schedule.Schedule {
	if n == 1 {
		return schedule.Forever{}
	}
	return schedule.Intersect{A: balanced(n / 2), B: balanced(n / 2)}
}

func BenchmarkHostile(b *testing.B) {
	inputs := []struct{ name, src string }{
		{"1MB-parens", strings.Repeat("(", 1<<20)},
		{"64KiB-parens", strings.Repeat("(", parse.MaxLen)},
		{"and-chain-1000", strings.Repeat("Forever & ", 1000) + "Forever"},
		{"args-2000", "Times(" + strings.Repeat("1, ", 2000) + "1)"},
		{"args-20k", "Times(" + strings.Repeat("1, ", 20_000) + "1)"},
	}
	for _, in := range inputs {
		b.Run(in.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := parse.Parse(in.src); err == nil {
					b.Fatal("no error")
				}
			}
		})
	}
}

// allocated returns the bytes and objects one call of f allocates.
func allocated(f func()) (bytes, objects uint64) {
	var before, after runtime.MemStats
	f() // warm up
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, after.Mallocs - before.Mallocs
}

// TestLinearWork checks that the memory Parse allocates grows linearly
// with the input, for inputs that stress each part of the parser: a
// quadratic step (copying a growing list, rescanning the input) would show
// here as a ratio near 16 rather than 4. Allocation is deterministic, so
// unlike a timing this cannot flake.
func TestLinearWork(t *testing.T) {
	inputs := map[string]func(n int) string{
		"& chain":    func(n int) string { return strings.Repeat("Forever & ", n) + "Forever" },
		"then chain": func(n int) string { return strings.Repeat("Forever then ", n) + "Forever" },
		"arguments":  func(n int) string { return "Times(" + strings.Repeat("1, ", n) + "1)" },
		"comments":   func(n int) string { return strings.Repeat("# comment\n", n) + "Forever" },
		"error late": func(n int) string { return strings.Repeat("Times(1) | ", n) + "Times(1) Times(2)" },
	}
	for name, gen := range inputs {
		t.Run(name, func(t *testing.T) {
			small, large := gen(150), gen(600) // within MaxTokens
			sb, so := allocated(func() { _, _ = parse.Parse(small) })
			lb, lo := allocated(func() { _, _ = parse.Parse(large) })
			t.Logf("ratios: %.2f bytes, %.2f objects", float64(lb)/float64(sb), float64(lo)/float64(so))
			if lb > 6*sb || lo > 6*so {
				t.Errorf("4× the input allocates %d bytes in %d objects, against %d bytes in %d objects: not linear", lb, lo, sb, so)
			}
		})
	}
}
