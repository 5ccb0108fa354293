package leakcheck_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/recur-go/recur/internal/leakcheck"
)

// TestMain checks this package's own tests, and is the VerifyTestMain
// that TestVerifyTestMainCatchesLeak runs in a child process.
func TestMain(m *testing.M) {
	leakcheck.Wait = 200 * time.Millisecond
	leakcheck.VerifyTestMain(m)
}

// recorder is a testing.TB that keeps what Errorf says.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// blockedForever is the function a leaked goroutine sits in, for its
// name in the stacks.
func blockedForever(stop chan struct{}) { <-stop }

func TestVerifyNoneCatchesLeak(t *testing.T) {
	stop := make(chan struct{})
	go blockedForever(stop)
	r := &recorder{TB: t}
	leakcheck.VerifyNone(r)
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], "leakcheck_test.blockedForever") || !strings.Contains(r.errs[0], "leakcheck_test.go:") {
		t.Errorf("VerifyNone with a goroutine left running said %q, want one error with its stack", r.errs)
	}
	close(stop)
	r = &recorder{TB: t}
	leakcheck.VerifyNone(r)
	if len(r.errs) != 0 {
		t.Errorf("VerifyNone after the goroutine ended: %q", r.errs)
	}
}

// TestVerifyNoneWaits: a goroutine that ends within Wait is no leak.
func TestVerifyNoneWaits(t *testing.T) {
	stop := make(chan struct{})
	go blockedForever(stop)
	time.AfterFunc(20*time.Millisecond, func() { close(stop) })
	r := &recorder{TB: t}
	leakcheck.VerifyNone(r)
	if len(r.errs) != 0 {
		t.Errorf("VerifyNone with a goroutine that ends in 20ms: %q", r.errs)
	}
}

// TestLeakOnPurpose leaves a goroutine running, when the parent test
// below runs it in a child process.
func TestLeakOnPurpose(t *testing.T) {
	if os.Getenv("LEAKCHECK_LEAK") != "1" {
		t.Skip("run by TestVerifyTestMainCatchesLeak")
	}
	go blockedForever(make(chan struct{}))
}

// TestVerifyTestMainCatchesLeak runs this test binary on TestLeakOnPurpose
// alone, which passes but leaks: VerifyTestMain must exit 1 and print the
// goroutine's stack.
func TestVerifyTestMainCatchesLeak(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestLeakOnPurpose$", "-test.count=1")
	cmd.Env = append(os.Environ(), "LEAKCHECK_LEAK=1")
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 {
		t.Fatalf("a test binary that leaks exited with %v, want exit status 1:\n%s", err, out)
	}
	if !strings.Contains(string(out), "goroutines still run (1)") || !strings.Contains(string(out), "leakcheck_test.blockedForever") {
		t.Errorf("a test binary that leaks printed:\n%s\nwant the leaked goroutine's stack", out)
	}
}
