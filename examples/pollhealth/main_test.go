package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/internal/leakcheck"
	"github.com/recur-go/recur/repeat"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }

type transport func(*http.Request) (*http.Response, error)

func (f transport) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestPollEveryThirtySeconds: the 30-second poller on a virtual clock — ten
// minutes of polling in no time — counts the checks that passed before the
// first failure, and keeps to the 30-second grid.
func TestPollEveryThirtySeconds(t *testing.T) {
	clock := clockcap.Virtual(time.Now())
	var at []time.Duration
	client := &http.Client{Transport: transport(func(*http.Request) (*http.Response, error) {
		at = append(at, clock.Elapsed())
		code := http.StatusOK
		if len(at) == 21 {
			code = http.StatusInternalServerError
		}
		return &http.Response{StatusCode: code, Status: http.StatusText(code), Body: io.NopCloser(strings.NewReader(""))}, nil
	})}
	n, err := watch(context.Background(), repeat.Options{Caps: retry.Caps{Clock: clock}}, schedule.Spaced{Every: 30 * time.Second}, client, "http://svc/health")
	if n != 20 || err == nil || !strings.Contains(err.Error(), "Internal Server Error") {
		t.Errorf("watch = %d, %v; want 20 and the 500", n, err)
	}
	if clock.Elapsed() != 10*time.Minute || at[20] != 10*time.Minute {
		t.Errorf("elapsed %v, last check at %v; want 10m0s", clock.Elapsed(), at[20])
	}
}

// TestWatchStopsAtDeadline: with a deadline, the check that would start
// past it is not waited for.
func TestWatchStopsAtDeadline(t *testing.T) {
	// The deadline comes from the virtual clock, started at the real now:
	// package context checks it against real time as well, so a clock
	// started in the past would give a context that has already expired.
	clock := clockcap.Virtual(time.Now())
	ctx, cancel := context.WithDeadline(context.Background(), clock.Now().Add(95*time.Second))
	defer cancel()
	client := &http.Client{Transport: transport(func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader(""))}, nil
	})}
	n, err := watch(ctx, repeat.Options{Caps: retry.Caps{Clock: clock}}, schedule.Spaced{Every: 30 * time.Second}, client, "http://svc/health")
	if n != 4 || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("watch = %d, %v; want 4 and DeadlineExceeded", n, err)
	}
	if diff := cmp.Diff([]time.Duration{30 * time.Second, 30 * time.Second, 30 * time.Second}, clock.Sleeps()); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
}
