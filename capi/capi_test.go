package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// asan are the cc arguments of the C test: AddressSanitizer, with its
// leak checker, which runs at exit. Go's runtime and ASan coexist in one
// process here (the runtime's heap is its own mmap'd arenas, which ASan
// neither tracks nor reports), so valgrind is not needed.
var asan = []string{"-g", "-O1", "-fsanitize=address", "-fno-omit-frame-pointer"}

// runC runs a C test program and checks its closing line and that the
// sanitizer reported nothing.
func runC(t *testing.T, bin string) {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	out := stdout.String()
	if err != nil || strings.Contains(stderr.String(), "Sanitizer") {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", filepath.Base(bin), err, out, stderr.String())
	}
	summary := regexp.MustCompile(`(?m)^(\d+) passed, 0 failed$`).FindString(out)
	if summary == "" {
		t.Fatalf("%s printed no clean summary:\n%s\n%s", filepath.Base(bin), out, stderr.String())
	}
	t.Logf("%s: %s; AddressSanitizer: no errors, no leaks", filepath.Base(bin), summary)
}

// TestC runs test/recur_test.c against librecur.so under
// AddressSanitizer.
func TestC(t *testing.T) {
	lib := sharedLibrary(t)
	bin := filepath.Join(buildDir, "recur_test")
	cc(t, bin, []string{"test/recur_test.c"}, append(asan, linkShared(lib)...)...)
	runC(t, bin)
}

// TestCArchive runs the same test linked with librecur.a.
func TestCArchive(t *testing.T) {
	lib := archiveLibrary(t)
	bin := filepath.Join(buildDir, "recur_test_static")
	cc(t, bin, []string{"test/recur_test.c", lib}, append(asan, "-lpthread")...)
	runC(t, bin)
}

// TestBenchHarness builds the C benchmark harness and runs each of its
// benchmarks for a few iterations, so that it keeps working between the
// runs of docs/benchmarks.md.
func TestBenchHarness(t *testing.T) {
	lib := sharedLibrary(t)
	bin := filepath.Join(buildDir, "bench")
	cc(t, bin, []string{"test/bench.c"}, append([]string{"-O2"}, linkShared(lib)...)...)
	out, err := exec.Command(bin, "-n", "1000").CombinedOutput()
	if err != nil {
		t.Fatalf("bench: %v\n%s", err, out)
	}
	for _, name := range []string{"BenchmarkDelay/impl=abi", "BenchmarkAllowRecord/impl=abi"} {
		if !bytes.Contains(out, []byte(name)) {
			t.Errorf("bench printed no %s:\n%s", name, out)
		}
	}
}

// TestPython runs the ctypes example's tests and the example itself
// against librecur.so, writing no bytecode into the tree.
func TestPython(t *testing.T) {
	python := need(t, "python3", "apt-get install python3")
	lib := sharedLibrary(t)
	env := append(os.Environ(), "RECUR_LIB="+lib, "PYTHONDONTWRITEBYTECODE=1")
	for _, args := range [][]string{{"-B", "-m", "unittest", "-v", "test_recur"}, {"-B", "example.py"}} {
		cmd := exec.Command(python, args...)
		cmd.Dir = filepath.Join("examples", "python")
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("python3 %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		t.Logf("python3 %s:\n%s", strings.Join(args, " "), out)
	}
}

// prototypes returns the functions a C header declares, each as "int
// name(type, type)" with the parameters' names and const left out, so
// that recur.h and the header cgo writes can be compared.
func prototypes(t *testing.T, header string) map[string]string {
	t.Helper()
	re := regexp.MustCompile(`(?m)^(?:extern\s+)?((?:const\s+)?\w+\s*\*?)\s*(recur_\w+)\(([^)]*)\);`)
	out := map[string]string{}
	for _, m := range re.FindAllStringSubmatch(header, -1) {
		var params []string
		for p := range strings.SplitSeq(m[3], ",") {
			p = strings.TrimSpace(strings.ReplaceAll(p, "const ", ""))
			if p == "void" {
				continue
			}
			// Drop the name: what follows the last space or star.
			cut := strings.LastIndexAny(p, " *")
			typ := strings.ReplaceAll(p[:cut+1], " ", "")
			params = append(params, typ)
		}
		ret := strings.ReplaceAll(strings.ReplaceAll(m[1], "const ", ""), " ", "")
		out[m[2]] = ret + " " + m[2] + "(" + strings.Join(params, ", ") + ")"
	}
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// cFunctions are the functions of recur.h written in C (cfuncs.c), not
// exported from Go.
var cFunctions = []string{"recur_abi_version", "recur_free", "recur_strerror"}

// TestHeader checks that recur.h declares exactly the functions the
// library defines, with the types cgo gives them (const aside), and those
// of cfuncs.c.
func TestHeader(t *testing.T) {
	lib := sharedLibrary(t)
	want := prototypes(t, readFile(t, "recur.h"))
	got := prototypes(t, readFile(t, strings.TrimSuffix(lib, ".so")+".h"))
	for _, name := range cFunctions {
		if _, ok := want[name]; !ok {
			t.Errorf("recur.h does not declare %s", name)
		}
		delete(want, name)
	}
	for name, g := range got {
		if w, ok := want[name]; !ok {
			t.Errorf("the library exports %s, which recur.h does not declare", g)
		} else if w != g {
			t.Errorf("recur.h declares %s;\nthe library exports %s", w, g)
		}
	}
	for name, w := range want {
		if _, ok := got[name]; !ok {
			t.Errorf("recur.h declares %s, which the library does not export", w)
		}
	}
	if len(got) < 15 {
		t.Errorf("found only %d exported functions in the generated header", len(got))
	}
}

// TestStaleCoversAll checks that the C test's stale-handle calls name
// every function of recur.h that takes a handle, so that a new function
// cannot skip the check.
func TestStaleCoversAll(t *testing.T) {
	var takes []string
	for name, proto := range prototypes(t, readFile(t, "recur.h")) {
		if strings.Contains(proto, "(recur_handle") || strings.Contains(proto, ", recur_handle,") || strings.Contains(proto, ", recur_handle)") {
			takes = append(takes, name)
		}
	}
	slices.Sort(takes)
	src := readFile(t, "test/recur_test.c")
	var covered []string
	for _, m := range regexp.MustCompile(`STALE\((recur_\w+),`).FindAllStringSubmatch(src, -1) {
		covered = append(covered, m[1])
	}
	slices.Sort(covered)
	covered = slices.Compact(covered)
	if !slices.Equal(takes, covered) {
		t.Errorf("functions that take a handle:\n%v\nstale-handle calls in test/recur_test.c:\n%v", takes, covered)
	}
	// Python's binding is held to the same list.
	py := readFile(t, "examples/python/recur.py")
	for _, name := range takes {
		if !strings.Contains(py, name) {
			t.Errorf("examples/python/recur.py does not bind %s", name)
		}
	}
}
