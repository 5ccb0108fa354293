// Command httpclient shows httpretry.Transport against a service that
// misbehaves on purpose: what is retried, what is not, how Retry-After
// paces the retries, and how a circuit breaker stops the calls to a host
// that stays down.
//
// It runs offline: the service is an httptest server inside the program.
//
//	go run ./examples/httpclient
//
// main_test.go runs the same code on a virtual clock and a pinned seed,
// and checks its output.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/retry"
)

// policy is full-jitter exponential backoff from 100ms, capped at 2s, and
// at most four attempts in all.
const policy = "fulljitter(100ms, 2s) & times(4)"

func main() {
	if err := run(os.Stdout, clockcap.Real(), randcap.Real()); err != nil {
		fmt.Fprintln(os.Stderr, "httpclient:", err)
		os.Exit(1)
	}
}

// run starts the service, makes the calls and reports each.
func run(w io.Writer, clock clockcap.Clock, random randcap.Random) error {
	svc := newService()
	srv := httptest.NewServer(svc)
	defer srv.Close()

	tr, err := httpretry.New(nil, policy)
	if err != nil {
		return err
	}
	// One breaker per host: three failures in a row open it.
	tr.Breaker, err = breaker.NewRegistry(breaker.Config{ConsecutiveFailures: 3, Clock: clock, Random: random}, 0)
	if err != nil {
		return err
	}
	// This demo shows the breaker alone. By default a Transport that
	// retries also gets gRFC A6's token bucket per host, which would cut
	// the retries of the failing calls below short before the breaker
	// opens.
	tr.Options.Unthrottled = true
	tr.Options.Clock, tr.Options.Random = clock, random
	tr.Options.AttemptTimeout = 2 * time.Second
	tr.Options.Observer = retry.ObserverFunc(func(_ context.Context, e retry.Event) {
		if e.Kind == retry.Retrying {
			fmt.Fprintf(w, "    attempt %d: %v; retrying\n", e.Attempt, e.Err)
		}
	})
	tr.DeadlineHeader = "X-Request-Deadline-Ms"
	client := &http.Client{Transport: tr}
	defer client.CloseIdleConnections()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, c := range []struct {
		what, method, path, key string
	}{
		{"a GET that fails twice, first with Retry-After: 1", "GET", "/quote", ""},
		{"a GET for a page that does not exist", "GET", "/missing", ""},
		{"a POST without an idempotency key", "POST", "/orders", ""},
		{"the same POST with an Idempotency-Key", "POST", "/orders", "order-17"},
		{"a GET that shows the deadline header", "GET", "/deadline", ""},
		{"a GET to a path that stays down", "GET", "/down", ""},
		{"a GET to the same host, while its breaker is open", "GET", "/quote", ""},
	} {
		fmt.Fprintf(w, "%s (%s %s)\n", c.what, c.method, c.path)
		before := svc.requests(c.path)
		var body io.Reader
		if c.method == "POST" {
			body = strings.NewReader(`{"item": "widget"}`)
		}
		req, err := http.NewRequestWithContext(ctx, c.method, srv.URL+c.path, body)
		if err != nil {
			return err
		}
		if c.key != "" {
			req.Header.Set("Idempotency-Key", c.key)
		}
		resp, err := client.Do(req)
		sent := svc.requests(c.path) - before
		switch {
		case errors.Is(err, breaker.ErrOpen):
			fmt.Fprintf(w, "    => circuit open; the service saw %s\n", requests(sent))
		case err != nil:
			return err
		default:
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			fmt.Fprintf(w, "    => %s %q; the service saw %s\n", resp.Status, strings.TrimSpace(string(b)), requests(sent))
		}
	}
	return nil
}

func requests(n int) string {
	if n == 1 {
		return "1 request"
	}
	return fmt.Sprint(n, " requests")
}

// service is a flaky HTTP service that counts the requests per path.
type service struct {
	mu   sync.Mutex
	seen map[string]int
}

func newService() *service { return &service{seen: make(map[string]int)} }

func (s *service) requests(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[path]
}

func (s *service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	s.mu.Lock()
	s.seen[r.URL.Path]++
	n := s.seen[r.URL.Path]
	s.mu.Unlock()
	switch r.URL.Path {
	case "/quote": // 503 with Retry-After, then 502, then the quote
		switch n {
		case 1:
			w.Header().Set("Retry-After", "1")
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
		case 2:
			http.Error(w, "upstream blip", http.StatusBadGateway)
		default:
			fmt.Fprint(w, "ACME 42.00")
		}
	case "/orders": // 503 twice, then created
		if n <= 2 {
			http.Error(w, "try later", http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, "order accepted")
	case "/down":
		http.Error(w, "down", http.StatusServiceUnavailable)
	case "/deadline":
		fmt.Fprintf(w, "I was given %s ms", r.Header.Get("X-Request-Deadline-Ms"))
	default:
		http.NotFound(w, r)
	}
}
