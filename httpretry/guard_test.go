package httpretry_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// TestBreakerOpensAndStopsTraffic: no retry goes through an open breaker,
// through HTTP: a breaker that opens after two failures in a row stops the retry
// loop with errors.Is(err, breaker.ErrOpen), and while it is open the
// server sees no request at all. Another host keeps its own breaker.
func TestBreakerOpensAndStopsTraffic(t *testing.T) {
	down := newServer(t, status(http.StatusServiceUnavailable))
	up := newServer(t, status(http.StatusOK))
	reg, err := breaker.NewRegistry(breaker.Config{ConsecutiveFailures: 2}, 0)
	if err != nil {
		t.Fatal(err)
	}
	tr := &httpretry.Transport{Budget: ownBudgets(), Base: newBase(t), Policy: schedule.Times{N: 5}, Breaker: reg}

	_, err = tr.RoundTrip(variant{method: "GET"}.request(t, context.Background(), down.URL))
	var re *retry.Error
	if !errors.Is(err, breaker.ErrOpen) || !errors.As(err, &re) || re.Reason != retry.Open {
		t.Fatalf("first call: err = %v; want a *retry.Error with Reason Open", err)
	}
	var se *httpretry.StatusError
	if !errors.As(err, &se) || se.StatusCode != 503 {
		t.Errorf("first call: err = %v; want it to wrap the last answer, a 503", err)
	}
	for range 3 {
		_, err = tr.RoundTrip(variant{name: "POST", method: "POST", body: "rewind"}.request(t, context.Background(), down.URL))
		if !errors.Is(err, breaker.ErrOpen) {
			t.Fatalf("while open: err = %v; want breaker.ErrOpen", err)
		}
	}
	if n := down.requests.Load(); n != 2 {
		t.Errorf("down server saw %d requests; want 2 (none while open)", n)
	}
	resp, err := tr.RoundTrip(variant{method: "GET"}.request(t, context.Background(), up.URL))
	if err != nil {
		t.Fatalf("other host: %v", err)
	}
	resp.Body.Close()
	want := []string{down.URL, up.URL}
	slices.Sort(want) // All yields targets in order
	if diff := cmp.Diff(want, keys(reg)); diff != "" {
		t.Errorf("breaker targets (-want +got):\n%s", diff)
	}
}

func keys(reg *breaker.Registry) []string {
	var ks []string
	for k := range reg.All() {
		ks = append(ks, k)
	}
	return ks
}

// closeCounter is a request body that counts its Close calls.
type closeCounter struct {
	io.Reader
	closes int
}

func (c *closeCounter) Close() error { c.closes++; return nil }

// TestOpenBreakerClosesBody checks that a request the breaker refuses
// before its first attempt still has its body closed, as a RoundTripper
// must.
func TestOpenBreakerClosesBody(t *testing.T) {
	srv := newServer(t, status(http.StatusOK))
	reg, err := breaker.NewRegistry(breaker.Config{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	reg.Get(srv.URL).ForceOpen()
	tr := &httpretry.Transport{Budget: ownBudgets(), Base: newBase(t), Policy: schedule.Times{N: 3}, Breaker: reg}
	body := &closeCounter{Reader: strings.NewReader("x")}
	req, err := http.NewRequest("PUT", srv.URL, body)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tr.RoundTrip(req)
	if !errors.Is(err, breaker.ErrOpen) {
		t.Errorf("err = %v; want breaker.ErrOpen", err)
	}
	if body.closes != 1 || srv.requests.Load() != 0 {
		t.Errorf("body closed %d times, server saw %d requests; want 1 and 0", body.closes, srv.requests.Load())
	}
}

// TestBudgetLimitsRetries runs calls against a server that always fails,
// through a token bucket of 4 (retries while more than 2 tokens are left):
// the first call makes 2 attempts and returns the last 503, the next ones
// are not retried at all.
func TestBudgetLimitsRetries(t *testing.T) {
	srv := newServer(t, status(http.StatusServiceUnavailable))
	reg, err := budget.NewRegistry(budget.TokenBucketConfig{MaxTokens: 4}, 0)
	if err != nil {
		t.Fatal(err)
	}
	tr := &httpretry.Transport{Base: newBase(t), Policy: schedule.Times{N: 5}, Budget: reg}
	var seen []int64
	for range 3 {
		resp, err := tr.RoundTrip(variant{method: "GET"}.request(t, context.Background(), srv.URL))
		if err != nil {
			t.Fatalf("RoundTrip: %v; want the 503", err)
		}
		resp.Body.Close()
		seen = append(seen, srv.requests.Load())
	}
	if diff := cmp.Diff([]int64{2, 3, 4}, seen); diff != "" {
		t.Errorf("requests seen after each call (-want +got):\n%s", diff)
	}
	if st := reg.Get(srv.URL).Stats(); st.Retries != 1 || st.Throttled != 3 {
		t.Errorf("budget stats %+v; want 1 retry allowed, 3 throttled", st)
	}
}

// TestConnectionsReused checks that the responses a call discards are
// drained and closed, so that one connection serves every attempt, and
// that none is left open once the caller closes the last body.
func TestConnectionsReused(t *testing.T) {
	srv := newServer(t, func(n int64, w http.ResponseWriter, _ *http.Request) {
		if n < 4 {
			w.WriteHeader(http.StatusBadGateway)
			io.WriteString(w, strings.Repeat("x", 10_000)) // a body to drain
			return
		}
		io.WriteString(w, "ok")
	})
	base := newBase(t)
	tr := &httpretry.Transport{Budget: ownBudgets(), Base: base, Policy: schedule.Times{N: 5}}
	resp, err := tr.RoundTrip(variant{method: "GET"}.request(t, context.Background(), srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "ok" || srv.requests.Load() != 4 || srv.opened.Load() != 1 {
		t.Errorf("body %q after %d requests on %d connections; want \"ok\" after 4 on 1", b, srv.requests.Load(), srv.opened.Load())
	}
	tr.CloseIdleConnections()
	waitClosed(t, srv)
}

// TestLargeDiscardedBodyNotRead checks the bound on draining: a discarded
// body larger than 64 KiB is not read to its end; its connection is
// closed and the next attempt opens another.
func TestLargeDiscardedBodyNotRead(t *testing.T) {
	srv := newServer(t, func(n int64, w http.ResponseWriter, _ *http.Request) {
		if n == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, strings.Repeat("x", 4<<20))
		}
	})
	base := newBase(t)
	tr := &httpretry.Transport{Budget: ownBudgets(), Base: base, Policy: schedule.Times{N: 2}}
	resp, err := tr.RoundTrip(variant{method: "GET"}.request(t, context.Background(), srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || srv.opened.Load() != 2 {
		t.Errorf("status %d on %d connections; want 200 on 2", resp.StatusCode, srv.opened.Load())
	}
	tr.CloseIdleConnections()
	waitClosed(t, srv)
}
