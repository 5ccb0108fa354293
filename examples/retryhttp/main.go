// Command retryhttp fetches a quote from a flaky HTTP service, the
// README's example made whole: back off, give up after five attempts, and
// waste none of them on an answer that will never come good.
//
// It runs offline: the "service" is an httptest server inside the program
// that fails twice with 503 before it answers, answers 404 for a missing
// page, and asks for a one-second pause (429 with Retry-After) once.
// main_test.go runs the same code against a target that never answers,
// with the clock and the random source pinned: five attempts, thirty
// seconds of backoff, no time at all.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// policy is "back off from 100ms up to 30s with 50–100% jitter, at most
// five attempts": Intersect(Jittered(Exponential(100ms, 200%, 30s), 50%,
// 100%), Times(5)).
var policy schedule.Schedule = schedule.Intersect{
	A: schedule.Backoff(100*time.Millisecond, 30*time.Second),
	B: schedule.Times{N: 5},
}

// statusError is an answer other than 200 OK. It implements
// retry.Pushback, so a Retry-After header sets the least wait.
type statusError struct {
	Code       int
	retryAfter string // the Retry-After header, if any
}

func (e *statusError) Error() string {
	return fmt.Sprintf("HTTP %d %s", e.Code, http.StatusText(e.Code))
}

// RetryAfter reads Retry-After in seconds. An unreadable value is
// negative, which stops the retries rather than guess.
func (e *statusError) RetryAfter() (time.Duration, bool) {
	if e.retryAfter == "" {
		return 0, false
	}
	s, err := strconv.Atoi(e.retryAfter)
	if err != nil || s < 0 {
		return -1, true
	}
	return time.Duration(s) * time.Second, true
}

// worthRetrying refuses the answers that will not get better: every 4xx
// but 429 Too Many Requests. Network errors and 5xx are retried.
func worthRetrying(err error) bool {
	var se *statusError
	if errors.As(err, &se) {
		return se.Code >= 500 || se.Code == http.StatusTooManyRequests
	}
	return true
}

// fetch makes one GET.
func fetch(ctx context.Context, client *http.Client, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return "", &statusError{Code: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After")}
	}
	return string(body), err
}

// quote fetches url on the policy. The capabilities come in through o.
func quote(ctx context.Context, o retry.Options, client *http.Client, url string) (string, error) {
	return retry.RetryWhile(ctx, o, policy, worthRetrying, func(ctx context.Context) (string, error) {
		return fetch(ctx, client, url)
	})
}

// flakyService answers /quote with 503 twice and then the quote, /busy
// with 429 and Retry-After: 1 once and then "ok", and 404 otherwise.
func flakyService() *httptest.Server {
	var quotes, busy atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/quote", func(w http.ResponseWriter, r *http.Request) {
		if quotes.Add(1) <= 2 {
			http.Error(w, "try later", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, "ACME 42.00")
	})
	mux.HandleFunc("/busy", func(w http.ResponseWriter, r *http.Request) {
		if busy.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		}
		fmt.Fprint(w, "ok")
	})
	return httptest.NewServer(mux)
}

func main() {
	srv := flakyService()
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	o := retry.Options{Observer: retry.ObserverFunc(func(_ context.Context, e retry.Event) {
		if e.Kind == retry.Retrying {
			fmt.Printf("  attempt %d: %v; retrying\n", e.Attempt, e.Err)
		}
	})}
	for _, path := range []string{"/quote", "/missing", "/busy"} {
		fmt.Println("GET", path)
		start := time.Now()
		body, err := quote(ctx, o, srv.Client(), srv.URL+path)
		if err != nil {
			fmt.Println("  failed:", err)
			continue
		}
		fmt.Printf("  %q after %v\n", body, time.Since(start).Round(100*time.Millisecond))
	}
	if ctx.Err() != nil {
		os.Exit(1)
	}
}
