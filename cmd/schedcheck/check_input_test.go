package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestYAMLMergeKeys: check --key sees the keys a mapping takes from merge
// keys (<<: *anchor, <<: [*a, *b], <<: {…}), its own keys first, and the
// earlier of two merged mappings before the later.
func TestYAMLMergeKeys(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "merge.yaml")
	text := `defaults: &defaults
  retry: "times(3)"
  timeout: 1s
slow: &slow
  retry: "backoff(100ms, 5s) & times(0)"
nested: &nested
  <<: *defaults
  extra: 1
clients:
  a:
    <<: *defaults
  b:
    <<: *defaults
    retry: "times(4)"
  c:
    <<: [*slow, *defaults]
  d:
    <<: {retry: "tims(2)"}
  e:
    <<: *nested
  f:
    <<: 5
`
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := schedcheck(t, "", "check", "-f", file, "--key", "clients.*.retry")
	want := []string{
		file + ":clients.a.retry: ok: Times(3)",
		file + ":clients.b.retry: ok: Times(4)",
		file + ":clients.e.retry: ok: Times(3)",
		"",
	}
	if diff := cmp.Diff(want, strings.Split(out, "\n")); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
	wantErrs := []string{
		file + ":5:38: clients.c.retry: Times: n 0 is below 1",
		"\tbackoff(100ms, 5s) & times(0)",
		"\t                           ^",
		file + `:18:18: clients.d.retry: unknown name "tims"; did you mean "Times"?`,
		"\ttims(2)",
		"\t^",
		"",
	}
	if diff := cmp.Diff(wantErrs, strings.Split(errs, "\n")); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
	if code != exitInvalid {
		t.Errorf("exit status %d, want %d", code, exitInvalid)
	}
}

// TestNamedPipe: check -f on a named pipe never blocks for ever. With no
// writer it fails at once, saying so; with a writer that sends a policy
// it reads it; with a writer that holds the pipe open and sends nothing,
// it gives up after maxPipeWait.
func TestNamedPipe(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "policy.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	type result struct {
		Out, Errs string
		Code      int
	}
	run := func(args ...string) (result, time.Duration) {
		start := time.Now()
		out, errs, code := schedcheck(t, "", args...)
		return result{out, errs, code}, time.Since(start)
	}
	noWriter := "schedcheck: " + fifo + ": a named pipe that nothing writes to; pass its contents on standard input (-f -) instead\n"
	for _, args := range [][]string{{"check", "-f", fifo}, {"check", "-f", fifo, "--key", "retry"}} {
		got, took := run(args...)
		if diff := cmp.Diff(result{Errs: noWriter, Code: exitUsage}, got); diff != "" {
			t.Errorf("%v, no writer (-want +got):\n%s", args, diff)
		}
		if took > time.Second {
			t.Errorf("%v, no writer: took %v", args, took)
		}
	}

	// A writer that sends a policy after 100ms.
	done := make(chan error, 1)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // blocks until check opens it
		if err != nil {
			done <- err
			return
		}
		time.Sleep(100 * time.Millisecond)
		_, err = w.WriteString("times(2)\n")
		w.Close()
		done <- err
	}()
	time.Sleep(50 * time.Millisecond) // let the writer reach open(2)
	got, _ := run("check", "-f", fifo)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(result{Out: fifo + ": ok: Times(2)\n"}, got); diff != "" {
		t.Errorf("writer (-want +got):\n%s", diff)
	}

	// A writer that holds the pipe open and sends nothing.
	defer func(d time.Duration) { maxPipeWait = d }(maxPipeWait)
	maxPipeWait = 200 * time.Millisecond
	hold := make(chan *os.File, 1)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			hold <- nil
			return
		}
		hold <- w
	}()
	time.Sleep(50 * time.Millisecond)
	got, took := run("check", "-f", fifo)
	if w := <-hold; w != nil {
		w.Close()
	}
	want := result{Errs: "schedcheck: " + fifo + ": not a regular file, and nothing more came from it within 200ms\n", Code: exitUsage}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("silent writer (-want +got):\n%s", diff)
	}
	if took > maxPipeWait+500*time.Millisecond {
		t.Errorf("silent writer: took %v, want about %v", took, maxPipeWait)
	}
}

// TestErrorsQuoteNoSecrets: an error about a config file says where and
// what is wrong without the file's text beyond the policy: decoders'
// messages lose what they quote, a key defined twice is not named.
func TestErrorsQuoteNoSecrets(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, text, want string
	}{
		{"flow.yaml", "password: SECRET1\nretry: \"times(2)\"\nbad: [unclosed SECRET2\n", "yaml: line 2: did not find expected ',' or ']'"},
		{"anchor.yaml", "retry: *SECRET3\n", "yaml: unknown anchor … referenced"},
		{"alias.yaml", "a: &SECRET4 [*SECRET4]\nretry: x\n", "refers to a node that contains it"},
		{"value.toml", "password = \"SECRET5\"\nretry = SECRET6\n", "value.toml:2:9:"},
		{"twice.toml", "SECRET7 = \"a\"\nSECRET7 = \"b\"\nretry = \"times(2)\"\n", "twice.toml:2:1: a key or table defined twice"},
		{"string.toml", "password = \"SECRET8\nretry = \"times(2)\"\n", "string.toml:1:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errs, code := schedcheck(t, "", "check", "-f", p, "--key", "retry")
			if strings.Contains(out+errs, "SECRET") {
				t.Errorf("output quotes the file:\n%s%s", out, errs)
			}
			if !strings.Contains(errs, tc.want) || code != exitInvalid {
				t.Errorf("exit status %d, stderr %q; want %d and %q", code, errs, exitInvalid, tc.want)
			}
		})
	}
}

// TestRedact: what redact keeps and drops.
func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		`yaml: line 2: did not find expected ',' or ']'`:     `yaml: line 2: did not find expected ',' or ']'`,
		`yaml: unknown anchor 'hunter2' referenced`:          `yaml: unknown anchor … referenced`,
		`line 3: alias *token refers to nothing`:             `line 3: alias … refers to nothing`,
		"mapping key \"k\" already defined at line 2":        "mapping key … already defined at line 2",
		"cannot unmarshal !!str `s3cr3t` into int":           "cannot unmarshal !!str … into int",
		"line 1: an alias refers to a node that contains it": "line 1: an alias refers to a node that contains it",
		strings.Repeat("é", 150):                             strings.Repeat("é", 100) + "…",
	} {
		if diff := cmp.Diff(want, redact(in)); diff != "" {
			t.Errorf("redact(%q) (-want +got):\n%s", in, diff)
		}
	}
}
