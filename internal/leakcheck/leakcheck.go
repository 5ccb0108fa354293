// Package leakcheck fails a test binary or a test that leaves goroutines
// running: the main module's tests use it where the nested modules use
// go.uber.org/goleak, with the same meaning. It is a test kit: only
// _test.go files import it (the TestMain of breaker, budget, clockcap,
// httpretry, repeat, retry and the examples), and it imports nothing of
// the module.
//
// It exists so that the main module's go.mod need not require goleak,
// whose own go.mod brings testify and its dependencies into the module
// graph of every program that requires recur.
//
// A goroutine counts as leaked unless it is the checking goroutine, one
// of the testing package's own (waiting in testing.RunTests, (*T).Run,
// (*T).Parallel or the fuzzing loop), the os/signal goroutines, or one
// sitting in a system call on behalf of cgo. Since a goroutine that was
// told to stop takes a moment to end, the check looks again, at growing
// intervals, for up to Wait before it reports the goroutines still
// there, with their stacks.
package leakcheck

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Wait is how long a check waits for goroutines to end before it reports
// them.
var Wait = 2 * time.Second

// VerifyTestMain runs the tests of m and, when they passed, exits with 1
// after printing the stacks of the goroutines still running once Wait has
// passed; otherwise it exits with m's code. A package's TestMain calls it:
//
//	func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }
func VerifyTestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if leaked := find(Wait); len(leaked) > 0 {
			fmt.Fprintf(os.Stderr, "leakcheck: the tests passed, but goroutines still run (%d):\n\n%s\n", len(leaked), strings.Join(leaked, "\n\n"))
			code = 1
		}
	}
	os.Exit(code)
}

// VerifyNone fails t, with their stacks, when goroutines other than the
// caller and the testing package's are still running once Wait has
// passed. It sees every goroutine of the process, so a test that calls it
// must not run in parallel with others.
func VerifyNone(t testing.TB) {
	t.Helper()
	if leaked := find(Wait); len(leaked) > 0 {
		t.Errorf("leakcheck: goroutines still run (%d):\n\n%s", len(leaked), strings.Join(leaked, "\n\n"))
	}
}

// find returns the stacks of the leaked goroutines, looking again at
// growing intervals until there are none or wait has passed.
func find(wait time.Duration) []string {
	deadline := time.Now().Add(wait)
	pause := time.Millisecond
	for {
		leaked := leaks()
		if len(leaked) == 0 || !time.Now().Before(deadline) {
			return leaked
		}
		time.Sleep(min(pause, time.Until(deadline)))
		pause = min(2*pause, 100*time.Millisecond)
	}
}

// leaks returns the stacks of the goroutines running now that count as
// leaked: all but the caller's (the first that runtime.Stack lists) and
// the ones that ignored picks out.
func leaks() []string {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var leaked []string
	for i, g := range strings.Split(strings.TrimSpace(string(buf)), "\n\n") {
		if i == 0 || ignored(g) {
			continue
		}
		leaked = append(leaked, g)
	}
	return leaked
}

// ignored reports whether the goroutine whose stack is g is one that
// every test binary has: the testing package's, waiting on a channel;
// the os/signal ones; or one in a system call for cgo.
func ignored(g string) bool {
	lines := strings.Split(g, "\n")
	state := header(lines[0])
	funcs := functions(lines[1:])
	if len(funcs) == 0 {
		return false
	}
	switch funcs[0] {
	case "testing.RunTests", "testing.(*T).Run", "testing.(*T).Parallel", "testing.runFuzzing", "testing.runFuzzTests":
		return strings.HasPrefix(state, "chan receive")
	case "os/signal.signal_recv", "os/signal.loop":
		return true
	}
	cgo := false
	for _, f := range funcs {
		if f == "runtime.ensureSigM" || strings.HasPrefix(f, "runtime.ensureSigM.") {
			return true
		}
		cgo = cgo || f == "runtime.goexit"
	}
	return cgo && strings.HasPrefix(state, "syscall")
}

// header returns the state of a goroutine from the first line of its
// stack: "chan receive" from "goroutine 7 [chan receive, 2 minutes]:".
func header(line string) string {
	_, state, _ := strings.Cut(line, "[")
	state, _, _ = strings.Cut(state, "]")
	state, _, _ = strings.Cut(state, ",")
	return state
}

// functions returns the names of the functions of a stack's frames, from
// the innermost out, and last the one that created the goroutine, if it
// is named ("created by F in goroutine 1").
func functions(lines []string) []string {
	var funcs []string
	for _, l := range lines {
		if l == "" || strings.HasPrefix(l, "\t") {
			continue // a file:line
		}
		if f, ok := strings.CutPrefix(l, "created by "); ok {
			f, _, _ = strings.Cut(f, " in goroutine")
			funcs = append(funcs, f)
			continue
		}
		if i := strings.LastIndex(l, "("); i > 0 {
			l = l[:i]
		}
		funcs = append(funcs, l)
	}
	return funcs
}
