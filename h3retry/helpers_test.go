package h3retry_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/h3retry"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// events records the Observer's events: each attempt's reason label, and
// the target each event named.
type events struct {
	mu      sync.Mutex
	labels  []string // of the Attempted events, in order
	targets map[string]bool
	kinds   map[retry.EventKind]int
}

func (e *events) Observe(_ context.Context, ev retry.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.targets == nil {
		e.targets, e.kinds = map[string]bool{}, map[retry.EventKind]int{}
	}
	e.kinds[ev.Kind]++
	e.targets[ev.Target] = true
	if ev.Kind == retry.Attempted {
		e.labels = append(e.labels, ev.Label)
	}
}

func (e *events) attempts() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.labels)
}

func (e *events) attemptLabels() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.labels...)
}

// counter is a breaker registry that never opens, so that its stats show
// exactly what each attempt was recorded as.
func counter(t testing.TB) *breaker.Registry {
	t.Helper()
	r, err := breaker.NewRegistry(breaker.Config{ConsecutiveFailures: -1, FailureRate: -1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// ownBudgets is a registry of gRFC A6 token buckets for one test alone,
// so that the tests do not share the process's default budgets.
func ownBudgets(t testing.TB) *budget.Registry {
	t.Helper()
	r, err := budget.NewRegistry(budget.DefaultConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// retrying is an h3retry Transport over c on times(n) without waits, with
// a breaker registry that counts, budgets of the test's own and an
// Observer that records.
func retrying(t testing.TB, c *client, n int) (*httpretry.Transport, *events) {
	t.Helper()
	ev := &events{}
	tr := &httpretry.Transport{
		Base:    &h3retry.Base{Transport: c.Transport},
		Policy:  schedule.Times{N: n},
		Breaker: counter(t),
		Budget:  ownBudgets(t),
		Options: retry.Options{Observer: ev},
	}
	return tr, ev
}

// post makes a POST of body to url, without an idempotency key; once
// makes a body that cannot be sent again (no GetBody).
func post(t testing.TB, ctx context.Context, url, body string, once bool) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if once {
		req.GetBody = nil
	}
	return req
}

func get(t testing.TB, ctx context.Context, url, id string) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Id", id)
	return req
}
