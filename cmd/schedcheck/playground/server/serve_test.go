package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recur-go/recur/cmd/schedcheck/playground"
	"go.uber.org/goleak"
)

// lockedBuffer is a bytes.Buffer safe for a writer and a reader at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// fakeProgram makes serve's build return p or err, without the go
// command, for the test; it says it builds on log as the real one does.
func fakeProgram(t *testing.T, p playground.Program, err error) {
	t.Helper()
	real := buildProgram
	t.Cleanup(func() { buildProgram = real })
	buildProgram = func(ctx context.Context, log io.Writer) (playground.Program, error) {
		fmt.Fprintln(log, "building the playground's WebAssembly program")
		return p, err
	}
}

// TestServe: the server builds the program, prints its address, serves the
// page and the program there, and stops with status 0 when its context
// ends.
func TestServe(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	prog := playground.Program{Wasm: []byte("\x00asm\x01\x00\x00\x00"), Exec: []byte("// loader\n")}
	fakeProgram(t, prog, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr lockedBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"--addr", "127.0.0.1:0"}, &stdout, &stderr) }()
	var url string
	for deadline := time.Now().Add(10 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, u, ok := strings.Cut(stdout.String(), "http://"); ok {
			url = "http://" + strings.TrimSpace(u)
		}
	}
	if url == "" {
		t.Fatalf("serve printed no address; stderr %q", stderr.String())
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "recur playground") {
		t.Errorf("GET %s = %d, %.60q", url, resp.StatusCode, body)
	}
	resp, err = client.Get(url + "recur.wasm")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	client.CloseIdleConnections()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/wasm" || !bytes.Equal(body, prog.Wasm) {
		t.Errorf("GET %srecur.wasm = %d, %q, %q", url, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if !strings.Contains(stderr.String(), "building the playground") {
		t.Errorf("serve did not say it builds the program; stderr %q", stderr.String())
	}
	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("serve exited %d, want 0; stderr %q", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop within 10s of its context ending")
	}
}

// TestServeBuildError: when the program cannot be built, the server says why
// and exits 1 without serving.
func TestServeBuildError(t *testing.T) {
	fakeProgram(t, playground.Program{}, errors.New("playground: no go command: install Go"))
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--addr", "127.0.0.1:0"}, &stdout, &stderr)
	if code != exitInvalid || !strings.Contains(stderr.String(), "schedcheck: serve: playground: no go command: install Go") || stdout.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1 and the error", code, stdout.String(), stderr.String())
	}
}

func TestServeUsage(t *testing.T) {
	for _, args := range [][]string{{"extra"}, {"--addr", "not an address"}} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != exitUsage {
			t.Errorf("%q: exit %d, want %d; stderr %q", args, code, exitUsage, stderr.String())
		}
	}
}
