// Command benchguard fails when a guarded benchmark costs more than the
// figures committed beside it: more than 10% more instructions per
// operation, or 10% more bytes or allocations per operation. It runs in CI (make
// bench-guard, part of make test), so that a regression of the hot paths
// fails the commit that made it, whatever the load on the machine.
//
// Instructions are counted with valgrind's cachegrind, which counts what
// the program executes and not how long it takes: the figure for a
// benchmark is the difference between a run of 3N and one of N iterations,
// divided by 2N, with the garbage collector off (GOGC=off) and one
// processor (-test.cpu 1), so start-up, the harness and the collector's
// pacing cancel out. Allocations per operation come from the testing
// package's own count (-test.benchmem), which is exact.
//
// Usage, from the repository's root:
//
//	go run ./internal/benchguard            # check against baseline.txt
//	go run ./internal/benchguard -update    # measure and rewrite baseline.txt
//
// Each line of baseline.txt names a module directory, a package in it, a
// benchmark, the N to run it with, and its committed instructions, bytes
// allocated and allocations per operation; "-" for the instructions guards the
// allocations alone (a benchmark over loopback sockets, whose instruction
// count follows the scheduler). Without valgrind the instructions are not
// checked, and the guard says how to install it; with CI=true that is an
// error.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Tolerance is the rise in instructions per operation that fails the
// guard: 10%.
const Tolerance = 0.10

// Row is one guarded benchmark and its committed figures.
type Row struct {
	Dir, Pkg, Bench string
	N               int
	Instr           float64 // per op; negative: not guarded
	Bytes, Allocs   float64 // allocated per op
}

func (r Row) key() string { return r.Dir + " " + r.Pkg + " " + r.Bench }

// Parse reads a baseline: blank lines and lines starting with # are
// skipped.
func Parse(rd io.Reader) ([]Row, error) {
	var rows []Row
	sc := bufio.NewScanner(rd)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Fields(text)
		if len(f) != 7 {
			return nil, fmt.Errorf("line %d: want 7 fields (dir package benchmark N instructions bytes allocs), got %d", line, len(f))
		}
		r := Row{Dir: f[0], Pkg: f[1], Bench: f[2], Instr: -1}
		var err error
		if r.N, err = strconv.Atoi(f[3]); err != nil || r.N < 1 {
			return nil, fmt.Errorf("line %d: N %q is not a positive integer", line, f[3])
		}
		if f[4] != "-" {
			if r.Instr, err = strconv.ParseFloat(f[4], 64); err != nil || r.Instr < 0 {
				return nil, fmt.Errorf("line %d: instructions %q is not a count or -", line, f[4])
			}
		}
		if r.Bytes, err = strconv.ParseFloat(f[5], 64); err != nil || r.Bytes < 0 {
			return nil, fmt.Errorf("line %d: bytes %q is not a count", line, f[5])
		}
		if r.Allocs, err = strconv.ParseFloat(f[6], 64); err != nil || r.Allocs < 0 {
			return nil, fmt.Errorf("line %d: allocs %q is not a count", line, f[6])
		}
		rows = append(rows, r)
	}
	return rows, sc.Err()
}

// Format writes rows as a baseline, under header.
func Format(w io.Writer, header string, rows []Row) {
	fmt.Fprint(w, header)
	for _, r := range rows {
		instr := "-"
		if r.Instr >= 0 {
			instr = strconv.FormatFloat(r.Instr, 'f', 0, 64)
		}
		fmt.Fprintf(w, "%s %s %s %d %s %s %s\n", r.Dir, r.Pkg, r.Bench, r.N, instr,
			strconv.FormatFloat(r.Bytes, 'f', -1, 64), strconv.FormatFloat(r.Allocs, 'f', -1, 64))
	}
}

// Compare returns what fails in got against the committed want: a rise of
// more than Tolerance in instructions (when both are measured), in bytes
// allocated or in allocations (any rise from zero, or from 1 to 2).
func Compare(want, got Row) []string {
	var bad []string
	if want.Instr > 0 && got.Instr >= 0 && got.Instr > want.Instr*(1+Tolerance) {
		bad = append(bad, fmt.Sprintf("instructions/op %.0f, committed %.0f (%+.1f%%, more than %.0f%%)",
			got.Instr, want.Instr, 100*(got.Instr/want.Instr-1), 100*Tolerance))
	}
	if got.Bytes > want.Bytes*(1+Tolerance) {
		bad = append(bad, fmt.Sprintf("B/op %g, committed %g", got.Bytes, want.Bytes))
	}
	if got.Allocs > want.Allocs*(1+Tolerance) {
		bad = append(bad, fmt.Sprintf("allocs/op %g, committed %g", got.Allocs, want.Allocs))
	}
	return bad
}

func main() {
	baseline := flag.String("baseline", "internal/benchguard/baseline.txt", "the committed figures")
	update := flag.Bool("update", false, "measure every row and rewrite the baseline")
	flag.Parse()
	if err := run(*baseline, *update, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchguard:", err)
		os.Exit(1)
	}
}

func run(path string, update bool, out io.Writer) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	rows, err := Parse(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	valgrind := true
	if _, err := exec.LookPath("valgrind"); err != nil {
		if os.Getenv("CI") == "true" {
			return errors.New("valgrind is not installed (apt-get install -y valgrind): instructions cannot be checked")
		}
		fmt.Fprintln(out, "benchguard: valgrind is not installed (apt-get install -y valgrind); checking allocations only")
		valgrind = false
	}
	tmp, err := os.MkdirTemp("", "benchguard")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bins := map[string]string{}
	var failed []string
	for i, r := range rows {
		bin, ok := bins[r.Dir+" "+r.Pkg]
		if !ok {
			bin = filepath.Join(tmp, fmt.Sprintf("b%d.test", len(bins)))
			cmd := exec.Command("go", "test", "-c", "-o", bin, r.Pkg)
			cmd.Dir, cmd.Stderr = r.Dir, os.Stderr
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("%s: go test -c %s: %w", r.Dir, r.Pkg, err)
			}
			bins[r.Dir+" "+r.Pkg] = bin
		}
		got, err := measure(bin, r, valgrind && r.Instr >= 0)
		if err != nil {
			return fmt.Errorf("%s: %w", r.key(), err)
		}
		bad := Compare(r, got)
		status := "ok"
		if len(bad) > 0 {
			status = "FAIL: " + strings.Join(bad, "; ")
			failed = append(failed, r.key()+": "+strings.Join(bad, "; "))
		}
		fmt.Fprintf(out, "%-44s %6s instr/op (committed %s), %g B/op (%g), %g allocs/op (%g)  %s\n",
			r.Pkg+" "+r.Bench, fmtInstr(got.Instr), fmtInstr(r.Instr), got.Bytes, r.Bytes, got.Allocs, r.Allocs, status)
		if update {
			if r.Instr >= 0 && got.Instr >= 0 {
				rows[i].Instr = got.Instr
			}
			rows[i].Bytes, rows[i].Allocs = got.Bytes, got.Allocs
		}
	}
	if update {
		var b bytes.Buffer
		Format(&b, header(data), rows)
		return os.WriteFile(path, b.Bytes(), 0o644)
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d benchmarks cost more than committed in %s:\n  %s\n(if the cost is meant, say why in the commit and run go run ./internal/benchguard -update)",
			len(failed), len(rows), path, strings.Join(failed, "\n  "))
	}
	return nil
}

// header returns the comment lines that open a baseline.
func header(data []byte) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if !strings.HasPrefix(line, "#") {
			break
		}
		b.WriteString(line)
	}
	return b.String()
}

func fmtInstr(v float64) string {
	if v < 0 {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// measure runs r's benchmark in bin: its allocations per operation, and
// its instructions per operation if instr is set (otherwise -1).
func measure(bin string, r Row, instr bool) (Row, error) {
	got := r
	got.Instr = -1
	outp, err := bench(bin, r, r.N, false)
	if err != nil {
		return got, err
	}
	if got.Bytes, got.Allocs, err = allocsOf(outp, r.Bench); err != nil {
		return got, err
	}
	if !instr {
		return got, nil
	}
	a, err := bench(bin, r, r.N, true)
	if err != nil {
		return got, err
	}
	b, err := bench(bin, r, 3*r.N, true)
	if err != nil {
		return got, err
	}
	ia, err := refsOf(a)
	if err != nil {
		return got, err
	}
	ib, err := refsOf(b)
	if err != nil {
		return got, err
	}
	got.Instr = float64(ib-ia) / float64(2*r.N)
	return got, nil
}

// bench runs one benchmark of bin n times, under cachegrind if cg is set,
// and returns its combined output.
func bench(bin string, r Row, n int, cg bool) ([]byte, error) {
	args := []string{"-test.run", "^$", "-test.bench", benchRE(r.Bench), "-test.benchtime", strconv.Itoa(n) + "x", "-test.cpu", "1", "-test.benchmem"}
	name := bin
	if cg {
		args = append([]string{"--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", bin}, args...)
		name = "valgrind"
	}
	cmd := exec.Command(name, args...)
	cmd.Dir = filepath.Join(r.Dir, r.Pkg) // where go test runs a package's tests
	cmd.Env = append(os.Environ(), "GOGC=off")
	outp, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, outp)
	}
	return outp, nil
}

// benchRE returns the -test.bench pattern that matches the benchmark
// named name alone, sub-benchmarks ("BenchmarkDecision/exponential")
// included.
func benchRE(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

var refsRE = regexp.MustCompile(`I\s+refs:\s+([0-9,]+)`)

// refsOf returns the instructions cachegrind counted.
func refsOf(outp []byte) (int64, error) {
	m := refsRE.FindSubmatch(outp)
	if m == nil {
		return 0, fmt.Errorf("no instruction count in cachegrind's output:\n%s", outp)
	}
	return strconv.ParseInt(strings.ReplaceAll(string(m[1]), ",", ""), 10, 64)
}

// allocsOf returns the B/op and allocs/op the benchmark named bench
// reported.
func allocsOf(outp []byte, bench string) (bytes, allocs float64, err error) {
	for _, line := range strings.Split(string(outp), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != bench && !strings.HasPrefix(f[0], bench+"-") {
			continue
		}
		found := 0
		for i := 1; i < len(f); i++ {
			switch f[i] {
			case "B/op":
				bytes, err = strconv.ParseFloat(f[i-1], 64)
				found++
			case "allocs/op":
				allocs, err = strconv.ParseFloat(f[i-1], 64)
				found++
			}
			if err != nil {
				return 0, 0, err
			}
		}
		if found == 2 {
			return bytes, allocs, nil
		}
	}
	return 0, 0, fmt.Errorf("no B/op and allocs/op for %s in:\n%s", bench, outp)
}
