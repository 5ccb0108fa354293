package httpretry_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

// variant is one way of making a request: its method, and what may mark it
// safe to repeat.
type variant struct {
	name   string
	method string
	key    string // an idempotency header to send, if any
	mark   bool   // marked with WithIdempotent
	body   string // "" none, "rewind" (GetBody set) or "once" (no GetBody)
}

var variants = []variant{
	{name: "GET", method: "GET"},
	{name: "HEAD", method: "HEAD"},
	{name: "OPTIONS", method: "OPTIONS"},
	{name: "TRACE", method: "TRACE"},
	{name: "PUT", method: "PUT", body: "rewind"},
	{name: "DELETE", method: "DELETE"},
	{name: "POST", method: "POST", body: "rewind"},
	{name: "POST-nobody", method: "POST"},
	{name: "PATCH", method: "PATCH", body: "rewind"},
	{name: "POST+Idempotency-Key", method: "POST", key: "Idempotency-Key", body: "rewind"},
	{name: "POST+X-Idempotency-Key", method: "POST", key: "X-Idempotency-Key", body: "rewind"},
	{name: "POST+WithIdempotent", method: "POST", mark: true, body: "rewind"},
	{name: "PUT-oneshot-body", method: "PUT", body: "once"},
	{name: "POST+key-oneshot-body", method: "POST", key: "Idempotency-Key", body: "once"},
}

// repeatable is the specification: the request may be sent again.
func (v variant) repeatable() bool {
	if v.body == "once" {
		return false
	}
	switch v.method {
	case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE":
		return true
	}
	return v.key != "" || v.mark
}

// fataler is what request needs of a *testing.T or a *rapid.T.
type fataler interface {
	Helper()
	Fatal(args ...any)
}

// request makes the variant's request to url.
func (v variant) request(t fataler, ctx context.Context, url string) *http.Request {
	t.Helper()
	if v.mark {
		ctx = httpretry.WithIdempotent(ctx)
	}
	var body io.Reader
	switch v.body {
	case "rewind":
		body = strings.NewReader("payload of " + v.name) // NewRequest sets GetBody
	case "once":
		body = io.NopCloser(strings.NewReader("payload of " + v.name)) // it cannot
	}
	req, err := http.NewRequestWithContext(ctx, v.method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if v.key != "" {
		req.Header.Set(v.key, "k-1")
	}
	return req
}

// verdictOf is the specification of what one attempt answered with code
// counts as (docs/http.md): the failures are 408, 500, 502, 503
// and 504; 429 is the target pushing back.
func verdictOf(code int, repeatable, retry500 bool) verdict.Verdict {
	switch code {
	case 408, 502, 503, 504:
		if repeatable {
			return verdict.Transient
		}
		return verdict.Failure
	case 500:
		if retry500 && repeatable {
			return verdict.Transient
		}
		return verdict.Failure
	case 429:
		if repeatable {
			return verdict.Retryable
		}
		return verdict.Neutral
	}
	if code < 400 {
		return verdict.Success
	}
	return verdict.Neutral
}

var codes = []int{200, 201, 204, 301, 304, 400, 401, 403, 404, 408, 409, 422, 429, 500, 501, 502, 503, 504, 505}

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

// outcome is what one call did, as the server and the breaker saw it.
type outcome struct {
	Attempts  int64
	Status    int
	Successes uint64
	Failures  uint64
}

// TestDecisionTable sends every request variant to a server that always
// answers the same status, on a policy of three attempts with no delay,
// and checks the attempts the server saw, the status returned, and what
// the breaker recorded, against the table in docs/http.md.
func TestDecisionTable(t *testing.T) {
	for _, retry500 := range []bool{false, true} {
		for _, code := range codes {
			for _, v := range variants {
				name := fmt.Sprintf("%d/%s", code, v.name)
				if retry500 {
					name = "Retry500/" + name
				}
				t.Run(name, func(t *testing.T) {
					srv := newServer(t, status(code))
					tr := &httpretry.Transport{
						Budget:   ownBudgets(),
						Base:     newBase(t),
						Policy:   schedule.Times{N: 3},
						Retry500: retry500,
						Breaker:  counter(t),
					}
					resp, err := tr.RoundTrip(v.request(t, context.Background(), srv.URL))
					if err != nil {
						t.Fatalf("RoundTrip: %v", err)
					}
					resp.Body.Close()

					vd := verdictOf(code, v.repeatable(), retry500)
					want := outcome{Attempts: 1, Status: code}
					if vd.Retry() {
						want.Attempts = 3
					}
					switch {
					case vd == verdict.Success:
						want.Successes = uint64(want.Attempts)
					case vd.Failed():
						want.Failures = uint64(want.Attempts)
					}
					st := tr.Breaker.Get(target(srv.URL)).Stats()
					got := outcome{Attempts: srv.requests.Load(), Status: resp.StatusCode, Successes: st.Successes, Failures: st.Failures}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("verdict %v (-want +got):\n%s", vd, diff)
					}
				})
			}
		}
	}
}

// target is the breaker key of a test server's URL.
func target(url string) string { return url } // httptest URLs are already scheme://127.0.0.1:port

// TestBodyIdenticalOnEveryAttempt checks that a request body is sent
// whole, and the same, on every attempt, and that a body that cannot be
// rewound is sent once.
func TestBodyIdenticalOnEveryAttempt(t *testing.T) {
	payload := bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB
	for _, v := range []variant{
		{name: "PUT", method: "PUT"},
		{name: "POST+key", method: "POST", key: "Idempotency-Key"},
		{name: "PATCH+mark", method: "PATCH", mark: true},
	} {
		t.Run(v.name, func(t *testing.T) {
			var (
				mu     sync.Mutex
				bodies []string // their SHA-256, to compare 64 KiB cheaply
			)
			srv := newServer(t, func(n int64, w http.ResponseWriter, r *http.Request) {
				b, err := io.ReadAll(r.Body)
				if err != nil {
					t.Errorf("reading body: %v", err)
				}
				mu.Lock()
				bodies = append(bodies, digest(b))
				mu.Unlock()
				if n < 3 {
					w.WriteHeader(http.StatusServiceUnavailable)
				}
			})
			tr := &httpretry.Transport{Budget: ownBudgets(), Base: newBase(t), Policy: schedule.Times{N: 5}}
			ctx := context.Background()
			if v.mark {
				ctx = httpretry.WithIdempotent(ctx)
			}
			req, err := http.NewRequestWithContext(ctx, v.method, srv.URL, bytes.NewReader(payload))
			if err != nil {
				t.Fatal(err)
			}
			if v.key != "" {
				req.Header.Set(v.key, "k-2")
			}
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff([]string{digest(payload), digest(payload), digest(payload)}, bodies); diff != "" {
				t.Errorf("bodies the server read (-want +got):\n%s", diff)
			}
		})
	}
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return fmt.Sprintf("%d bytes, sha256 %x", len(b), sum)
}
