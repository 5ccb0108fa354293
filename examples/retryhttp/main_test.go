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
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/retry"
)

func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }

// transport is a fake network: a handler for the HTTP client,
// with no sockets and no goroutines.
type transport func(*http.Request) (*http.Response, error)

func (f transport) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func answer(code int, header http.Header) *http.Response {
	if header == nil {
		header = http.Header{}
	}
	return &http.Response{StatusCode: code, Header: header, Body: io.NopCloser(strings.NewReader(http.StatusText(code)))}
}

// pinned returns options with a virtual clock and seed 1, so
// that testing a 30-second retry loop takes no time at all.
func pinned() (retry.Options, *clockcap.VirtualClock) {
	clock := clockcap.Virtual(time.Now())
	return retry.Options{Caps: retry.Caps{Clock: clock, Random: randcap.Seeded(1)}}, clock
}

// TestGivesUpAfterFiveAttempts: a target that is never reachable gets
// exactly five attempts, the policy's backoff is slept on the virtual
// clock — the same waits every run, because the seed is pinned — and the
// test takes no time.
func TestGivesUpAfterFiveAttempts(t *testing.T) {
	attempts := 0
	unreachable := &http.Client{Transport: transport(func(*http.Request) (*http.Response, error) {
		attempts++
		return nil, errors.New("dial tcp api.example.com:443: connect: connection refused")
	})}
	o, clock := pinned()
	_, err := quote(context.Background(), o, unreachable, "https://api.example.com/quote")
	var e *retry.Error
	if !errors.As(err, &e) || e.Attempts != 5 || e.Reason != retry.Exhausted {
		t.Fatalf("error %v, want to give up after 5 attempts", err)
	}
	if attempts != 5 {
		t.Errorf("%d attempts, want 5", attempts)
	}
	var want []time.Duration
	for d := range interp.Delays(policy, 1) {
		want = append(want, d)
	}
	if diff := cmp.Diff(want, clock.Sleeps()); diff != "" {
		t.Errorf("backoff slept (-want +got):\n%s", diff)
	}
}

// TestDoesNotRetry404: a 404 comes back after one attempt, unchanged.
func TestDoesNotRetry404(t *testing.T) {
	attempts := 0
	client := &http.Client{Transport: transport(func(*http.Request) (*http.Response, error) {
		attempts++
		return answer(http.StatusNotFound, nil), nil
	})}
	o, clock := pinned()
	_, err := quote(context.Background(), o, client, "https://api.example.com/missing")
	var se *statusError
	if !errors.As(err, &se) || se.Code != http.StatusNotFound {
		t.Fatalf("error %v, want the 404 itself", err)
	}
	var e *retry.Error
	if errors.As(err, &e) {
		t.Errorf("error %v is wrapped in a *retry.Error; want it unchanged", err)
	}
	if attempts != 1 || len(clock.Sleeps()) != 0 {
		t.Errorf("%d attempts and sleeps %v, want 1 and none", attempts, clock.Sleeps())
	}
}

// TestObeysRetryAfter: a 503 with Retry-After: 7 waits seven seconds (the
// backoff alone would wait under 100ms), then the quote comes.
func TestObeysRetryAfter(t *testing.T) {
	answers := []*http.Response{answer(http.StatusServiceUnavailable, http.Header{"Retry-After": {"7"}}), answer(http.StatusOK, nil)}
	client := &http.Client{Transport: transport(func(*http.Request) (*http.Response, error) {
		a := answers[0]
		answers = answers[1:]
		return a, nil
	})}
	o, clock := pinned()
	body, err := quote(context.Background(), o, client, "https://api.example.com/quote")
	if err != nil || body != "OK" {
		t.Fatalf("quote = %q, %v; want OK, nil", body, err)
	}
	if diff := cmp.Diff([]time.Duration{7 * time.Second}, clock.Sleeps()); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
}

// TestUnreadableRetryAfterStops: a Retry-After this client cannot read
// stops the retries instead of guessing.
func TestUnreadableRetryAfterStops(t *testing.T) {
	attempts := 0
	client := &http.Client{Transport: transport(func(*http.Request) (*http.Response, error) {
		attempts++
		return answer(http.StatusServiceUnavailable, http.Header{"Retry-After": {"soon"}}), nil
	})}
	o, _ := pinned()
	_, err := quote(context.Background(), o, client, "https://api.example.com/quote")
	var e *retry.Error
	if !errors.As(err, &e) || e.Reason != retry.Refused || attempts != 1 {
		t.Errorf("error %v after %d attempts, want Refused after 1", err, attempts)
	}
}
