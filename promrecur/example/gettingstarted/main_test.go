package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/retry"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRun runs the program and checks what each step printed. The
// program runs in a process of its own (this test binary, running
// TestProgram), as it would from go run: the shared budget of its target
// lives as long as the process, so a second run in this one (go test
// -count 2) would start with the bucket the first one left.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestProgram$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GETTINGSTARTED_PROGRAM=1")
	var out, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the program: %v\n%s%s", err, out.String(), stderr.String())
	}
	want := `step 1: Simplicity is prerequisite for reliability. (after 2 requests)
step 2: policy Intersect(Jittered(Exponential(50ms, 200%, 1s), 0%, 100%), Times(4))
step 2: a typo is an error:
json: cannot unmarshal "fulljitter(50ms, 1s) & tims(4)" (character 24 of the string: unknown name "tims"; did you mean "Times"?) into Go struct field Config.retry of type parse.Policy
step 3: call 1 gave up, schedule exhausted, attempts made: 4
step 3: call 2 gave up, retry budget exhausted, attempts made: 1
step 3: call 3 refused by the open breaker
step 3: call 4 refused by the open breaker
step 3: breaker open, the server saw 7 requests
step 4: 200 OK Simplicity is prerequisite for reliability.
step 5: recur_breaker_state{client="gettingstarted",target="quotes"} 2
step 5: recur_giveups_total{client="gettingstarted",reason="budget",target="quotes"} 1
step 5: recur_giveups_total{client="gettingstarted",reason="exhausted",target="quotes"} 1
step 5: recur_giveups_total{client="gettingstarted",reason="open",target="quotes"} 2
step 5: recur_retries_total{client="gettingstarted",reason="unlabeled",target="quotes"} 3
`
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestProgram is the program, when TestRun runs it.
func TestProgram(t *testing.T) {
	if os.Getenv("GETTINGSTARTED_PROGRAM") != "1" {
		t.Skip("TestRun runs it in a process of its own")
	}
	if err := run(context.Background(), os.Stdout); err != nil {
		t.Fatal(err)
	}
	os.Exit(0) // the output is the program's alone
}

// TestQuoteRetries is step 6 of docs/getting-started.md: the policy tested
// on a virtual clock, in microseconds.
func TestQuoteRetries(t *testing.T) {
	clock := clockcap.Virtual(time.Now())
	opts := retry.Options{Caps: retry.Caps{Clock: clock, Random: randcap.Seeded(1)}}
	calls := 0
	_, err := retry.Retry(context.Background(), opts, quotePolicy, func(ctx context.Context) (string, error) {
		calls++
		return "", errors.New("503 Service Unavailable")
	})
	var e *retry.Error
	if !errors.As(err, &e) || e.Attempts != 3 || calls != 3 {
		t.Fatalf("err = %v after %d calls, want a *retry.Error after 3 attempts", err, calls)
	}
	sleeps := clock.Sleeps() // the waits before attempts 2 and 3
	if len(sleeps) != 2 || sleeps[0] > 100*time.Millisecond || sleeps[1] > 200*time.Millisecond {
		t.Errorf("waits %v, want 2 of at most 100ms and 200ms", sleeps)
	}
}

// TestDocSnippets checks that each Go block of docs/getting-started.md is
// a run of lines of this program or of this test, in the order the page
// shows them: go vet compiles them here, and TestRun and TestQuoteRetries
// run them. The main module's snippet check cannot compile them, since
// client_golang is not among its dependencies. Indentation is ignored.
func TestDocSnippets(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/getting-started.md")
	if err != nil {
		t.Fatal(err)
	}
	var program string
	for _, f := range []string{"main.go", "main_test.go"} {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		program += "\n" + trimLines(string(src)) + "\n"
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	if len(blocks) < 6 {
		t.Fatalf("docs/getting-started.md has %d Go blocks, want one per step", len(blocks))
	}
	at := 0
	for _, b := range blocks {
		i := strings.Index(program[at:], "\n"+trimLines(b[1])+"\n")
		if i < 0 {
			if strings.Contains(program, "\n"+trimLines(b[1])+"\n") {
				t.Errorf("this block of docs/getting-started.md is out of order:\n%s", b[1])
			} else {
				t.Errorf("this block of docs/getting-started.md is not in main.go or main_test.go:\n%s", b[1])
			}
			continue
		}
		at += i + 1
	}
}

func trimLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, "\n")
}
