package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/recur-go/recur/mongorecur/internal/mongotest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestRun runs the example against FerretDB.
func TestRun(t *testing.T) {
	s := mongotest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out strings.Builder
	if err := run(ctx, s.URI(""), 3, 0, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	t.Logf("output:\n%s", out.String())
	want := "visit 1: ok; breaker closed\nvisit 2: ok; breaker closed\nvisit 3: ok; breaker closed\n" +
		"visits of /: 3\nbreaker: closed, 4 successes, 0 failures, 0 refused\n"
	if out.String() != want {
		t.Fatalf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}
