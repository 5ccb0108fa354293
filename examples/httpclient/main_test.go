package main

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/internal/leakcheck"
	"github.com/recur-go/recur/randcap"
)

func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }

const want = `a GET that fails twice, first with Retry-After: 1 (GET /quote)
    attempt 1: HTTP 503 Service Unavailable; retrying
    attempt 2: HTTP 502 Bad Gateway; retrying
    => 200 OK "ACME 42.00"; the service saw 3 requests
a GET for a page that does not exist (GET /missing)
    => 404 Not Found "404 page not found"; the service saw 1 request
a POST without an idempotency key (POST /orders)
    => 503 Service Unavailable "try later"; the service saw 1 request
the same POST with an Idempotency-Key (POST /orders)
    attempt 1: HTTP 503 Service Unavailable; retrying
    => 201 Created "order accepted"; the service saw 2 requests
a GET that shows the deadline header (GET /deadline)
    => 200 OK "I was given 2000 ms"; the service saw 1 request
a GET to a path that stays down (GET /down)
    attempt 1: HTTP 503 Service Unavailable; retrying
    attempt 2: HTTP 503 Service Unavailable; retrying
    attempt 3: HTTP 503 Service Unavailable; retrying
    => circuit open; the service saw 3 requests
a GET to the same host, while its breaker is open (GET /quote)
    => circuit open; the service saw 0 requests
`

// TestRun runs the program on a virtual clock and a pinned seed: the
// output is the same every run, and the first wait is the service's
// Retry-After, one second, slept in no time.
func TestRun(t *testing.T) {
	clock := clockcap.Virtual(time.Now())
	var out strings.Builder
	if err := run(&out, clock, randcap.Seeded(1)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	if sleeps := clock.Sleeps(); len(sleeps) == 0 || sleeps[0] != time.Second {
		t.Errorf("sleeps %v; want the first to be the Retry-After, 1s", sleeps)
	}
}
