package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/pgretry/internal/pgtest"
	"go.uber.org/goleak"
)

// TestRun runs the example against a real server.
func TestRun(t *testing.T) {
	defer goleak.VerifyNone(t)
	s := pgtest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, s.DSN(""), &out); err != nil {
		t.Fatal(err)
	}
	want := "visits of /: 2\nbreaker: closed, 5 successes, 0 failures\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}
