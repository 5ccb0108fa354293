package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRun runs the program on free ports, scrapes its /metrics once
// every server has been called, and stops it.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-listen", "127.0.0.1:0"}, w)
		w.Close()
	}()
	br := bufio.NewReader(r)
	var line string
	for !strings.Contains(line, "metrics at ") {
		var err error
		if line, err = br.ReadString('\n'); err != nil {
			t.Fatalf("reading the program's output: %v (run: %v)", err, <-done)
		}
	}
	go io.Copy(io.Discard, r)
	_, url, ok := strings.Cut(strings.TrimSpace(line), "metrics at ")
	if !ok {
		t.Fatalf("output %q names no metrics address", line)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get(url)
	if err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	calls := fams["recur_calls_total"]
	if n := len(calls.GetMetric()); n != 3 {
		t.Errorf("recur_calls_total has %d targets, want the 3 servers", n)
	}
	if n := len(fams["recur_breaker_state"].GetMetric()); n != 3 {
		t.Errorf("recur_breaker_state has %d targets, want 3", n)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
}

// TestRunFor: with -for the program stops on its own.
func TestRunFor(t *testing.T) {
	if err := run(context.Background(), []string{"-listen", "127.0.0.1:0", "-for", "200ms"}, io.Discard); err != nil {
		t.Fatal(err)
	}
}

// TestRunBadFlags: bad flags are an error, not a run.
func TestRunBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-for", "-1s"}, {"-rate", "0"}, {"-nope"}} {
		if err := run(context.Background(), args, io.Discard); err == nil {
			t.Errorf("run(%q) = nil; want an error", args)
		}
	}
}
