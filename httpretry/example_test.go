package httpretry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/retry"
)

// flaky starts a server that answers 503 to the first fails requests of
// each path, then 200, and counts what it sees.
func flaky(fails int64) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= fails {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "hello from "+r.Method)
	}))
	return srv, &n
}

// A client that retries: full-jitter backoff from 10ms, at most three
// attempts in all. The server fails twice, so the third attempt succeeds.
func ExampleNewClient() {
	srv, attempts := flaky(2)
	defer srv.Close()

	client, err := httpretry.NewClient("fulljitter(10ms, 1s) & times(3)")
	if err != nil {
		panic(err)
	}
	defer client.CloseIdleConnections()

	resp, err := client.Get(srv.URL)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.Status, string(body), "after", attempts.Load(), "attempts")
	// Output: 200 OK hello from GET after 3 attempts
}

// A POST is not retried: the server may have acted on it. An
// Idempotency-Key header says that it may be repeated.
func ExampleTransport_idempotencyKey() {
	srv, attempts := flaky(1)
	defer srv.Close()
	tr, err := httpretry.New(nil, "fulljitter(10ms, 1s) & times(3)")
	if err != nil {
		panic(err)
	}
	client := &http.Client{Transport: tr}
	defer client.CloseIdleConnections()

	resp, err := client.Post(srv.URL, "text/plain", strings.NewReader("order #1"))
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println("POST:", resp.Status, "after", attempts.Load(), "attempt")

	attempts.Store(0)
	req, _ := http.NewRequest("POST", srv.URL, strings.NewReader("order #2"))
	req.Header.Set("Idempotency-Key", "order-2")
	resp, err = client.Do(req)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println("POST with a key:", resp.Status, "after", attempts.Load(), "attempts")
	// Output:
	// POST: 503 Service Unavailable after 1 attempt
	// POST with a key: 200 OK after 2 attempts
}

// WithIdempotent marks a request as safe to repeat through its context,
// for a server that deduplicates by other means than a header.
func ExampleWithIdempotent() {
	srv, attempts := flaky(1)
	defer srv.Close()
	client, err := httpretry.NewClient("times(2)")
	if err != nil {
		panic(err)
	}
	defer client.CloseIdleConnections()

	ctx := httpretry.WithIdempotent(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL, strings.NewReader("upsert"))
	resp, err := client.Do(req)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.Status, "after", attempts.Load(), "attempts")
	// Output: 200 OK after 2 attempts
}

// With a breaker per host, a target that keeps failing is left alone:
// once the breaker opens, calls fail at once without a request.
func ExampleTransport_breakers() {
	srv, attempts := flaky(1000)
	defer srv.Close()
	breakers, err := breaker.NewRegistry(breaker.Config{ConsecutiveFailures: 3}, 0)
	if err != nil {
		panic(err)
	}
	tr, err := httpretry.New(nil, "times(5)")
	if err != nil {
		panic(err)
	}
	tr.Breaker = breakers
	client := &http.Client{Transport: tr}
	defer client.CloseIdleConnections()

	for range 3 {
		_, err := client.Get(srv.URL)
		fmt.Println(errors.Is(err, breaker.ErrOpen), attempts.Load())
	}
	// Output:
	// true 3
	// true 3
	// true 3
}

// Options.AttemptTimeout bounds each attempt until its headers arrive,
// and the request's context bounds them all; DeadlineHeader tells the
// server how long it has.
func ExampleTransport_deadlines() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println("server has at most", r.Header.Get("X-Request-Deadline-Ms"), "ms")
	}))
	defer srv.Close()
	tr, err := httpretry.New(nil, "fulljitter(50ms, 1s) & times(3)")
	if err != nil {
		panic(err)
	}
	tr.Options.AttemptTimeout = 500 * time.Millisecond
	tr.DeadlineHeader = "X-Request-Deadline-Ms"
	client := &http.Client{Transport: tr}
	defer client.CloseIdleConnections()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
	resp, err := client.Do(req)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.Status)
	// Output:
	// server has at most 500 ms
	// 200 OK
}

// The Observer is the one channel for what happens to a request: here a
// hook that prints each retry. Its events carry the request's context,
// in which IsIdempotent finds the WithIdempotent mark.
func ExampleTransport_observer() {
	srv, _ := flaky(1)
	defer srv.Close()
	tr, err := httpretry.New(nil, "times(2)")
	if err != nil {
		panic(err)
	}
	tr.Options.Observer = retry.ObserverFunc(func(ctx context.Context, e retry.Event) {
		if e.Kind == retry.Retrying {
			fmt.Println("attempt", e.Attempt, e.Label, "idempotent:", httpretry.IsIdempotent(ctx), "retrying")
		}
	})
	client := &http.Client{Transport: tr}
	defer client.CloseIdleConnections()

	ctx := httpretry.WithIdempotent(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL, strings.NewReader("upsert"))
	resp, err := client.Do(req)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.Status)
	// Output:
	// attempt 1 http-503 idempotent: true retrying
	// 200 OK
}
