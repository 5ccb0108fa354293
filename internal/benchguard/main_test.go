package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompare(t *testing.T) {
	want := Row{Bench: "BenchmarkX", Instr: 300, Bytes: 400, Allocs: 1}
	tests := []struct {
		name   string
		instr  float64
		allocs float64
		fails  int
	}{
		{"same", 300, 1, 0},
		{"cheaper", 200, 0, 0},
		{"+5% instructions", 315, 1, 0},
		{"+10% instructions", 330, 1, 0},
		{"+20% instructions", 360, 1, 1},
		{"one more allocation", 300, 2, 1},
		{"both", 400, 3, 2},
		{"instructions not measured", -1, 1, 0},
	}
	for _, tt := range tests {
		got := want
		got.Instr, got.Allocs = tt.instr, tt.allocs
		if bad := Compare(want, got); len(bad) != tt.fails {
			t.Errorf("%s: Compare = %q, want %d failures", tt.name, bad, tt.fails)
		}
	}
	if bad := Compare(Row{Instr: 100, Bytes: 256, Allocs: 1}, Row{Instr: 100, Bytes: 448, Allocs: 1}); len(bad) != 1 {
		t.Errorf("more bytes in as many allocations: Compare = %q, want a failure", bad)
	}
	if bad := Compare(Row{Instr: 100, Allocs: 0}, Row{Instr: 100, Allocs: 1}); len(bad) != 1 {
		t.Errorf("an allocation where there was none: Compare = %q, want a failure", bad)
	}
}

func TestParseFormat(t *testing.T) {
	const in = "# header\n# more\n. ./retry BenchmarkA 1000 213 0 0\n\nbench . BenchmarkB/sub 10 - 64 2.5\n"
	rows, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Row{
		{Dir: ".", Pkg: "./retry", Bench: "BenchmarkA", N: 1000, Instr: 213, Allocs: 0},
		{Dir: "bench", Pkg: ".", Bench: "BenchmarkB/sub", N: 10, Instr: -1, Bytes: 64, Allocs: 2.5},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
	var b strings.Builder
	Format(&b, header([]byte(in)), rows)
	if diff := cmp.Diff("# header\n# more\n. ./retry BenchmarkA 1000 213 0 0\nbench . BenchmarkB/sub 10 - 64 2.5\n", b.String()); diff != "" {
		t.Errorf("Format (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"a b c", ". ./x B 0 1 1 1", ". ./x B 10 x 1 1", ". ./x B 10 1 1 -1", ". ./x B 10 1 -1 1"} {
		if _, err := Parse(strings.NewReader(bad)); err == nil {
			t.Errorf("Parse(%q) = nil error", bad)
		}
	}
}

func TestBenchRE(t *testing.T) {
	if diff := cmp.Diff(`^BenchmarkDecision$/^backoff&times5$`, benchRE("BenchmarkDecision/backoff&times5")); diff != "" {
		t.Error(diff)
	}
	if diff := cmp.Diff(`^BenchmarkA\+$`, benchRE("BenchmarkA+")); diff != "" {
		t.Error(diff)
	}
}

func TestAllocsOf(t *testing.T) {
	out := []byte("BenchmarkAB \t 100 \t 5 ns/op \t 0 B/op \t 0 allocs/op\nBenchmarkA-2 \t 100 \t 5 ns/op \t 64 B/op \t 3 allocs/op\n")
	bytes, allocs, err := allocsOf(out, "BenchmarkA")
	if err != nil || bytes != 64 || allocs != 3 {
		t.Errorf("allocsOf = %v, %v, %v; want 64, 3", bytes, allocs, err)
	}
	if _, _, err := allocsOf(out, "BenchmarkC"); err == nil {
		t.Error("allocsOf of a missing benchmark: nil error")
	}
}
