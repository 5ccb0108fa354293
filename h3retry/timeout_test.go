package h3retry_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/httpretry"
)

// TestServerStopsAnswering: the server takes a request and never answers
// it (on a connection a first request made, so that the attempt timeout
// does not also cover the handshake). Options.AttemptTimeout ends the attempt; a GET is sent again (and
// answered), a POST without a key is not: the server had it, and may have
// processed it. The handler is entered twice for the GET and once for the
// POST; each timed-out attempt is labeled attempt-timeout and counts
// against the target.
func TestServerStopsAnswering(t *testing.T) {
	type outcome struct {
		Entered  int
		Labels   []string
		Failures uint64
		OK       bool
	}
	for _, tc := range []struct {
		method string
		want   outcome
	}{
		{"GET", outcome{2, []string{"", "attempt-timeout", ""}, 1, true}},
		{"POST", outcome{1, []string{"", "attempt-timeout"}, 1, false}},
	} {
		t.Run(tc.method, func(t *testing.T) {
			l := &ledger{}
			s := newServer(t, "", func(n int64, w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/warm" {
					return // the connection, made before the test's request
				}
				l.run(r)
				if n == 2 {
					<-r.Context().Done() // hangs until the client gives up on the stream, or the server closes
					return
				}
				io.WriteString(w, "answered")
			})
			c := newClient(t)
			tr, ev := retrying(t, c, 3)
			tr.Options.AttemptTimeout = 500 * time.Millisecond
			warm, err := tr.RoundTrip(get(t, context.Background(), s.url+"/warm", "warm"))
			if err != nil {
				t.Fatal(err)
			}
			warm.Body.Close()
			req := get(t, context.Background(), s.url, "call")
			if tc.method == "POST" {
				req = post(t, context.Background(), s.url, "call", false)
			}
			resp, err := tr.RoundTrip(req)
			if err == nil {
				resp.Body.Close()
			} else if !errors.Is(err, httpretry.ErrAttemptTimeout) {
				t.Errorf("err = %v; want ErrAttemptTimeout", err)
			}
			got := outcome{l.count("call"), ev.attemptLabels(), tr.Breaker.Get(s.url).Stats().Failures, err == nil}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestRetryAfter: a 503 with Retry-After is retried after the wait it
// asks for (on a virtual clock, so the test does not wait), for a GET; a
// POST without a key gets the 503 back; a Retry-After longer than
// Options.MaxPushback is not waited for: the 503 comes back at once.
func TestRetryAfter(t *testing.T) {
	type outcome struct {
		Status   int
		Requests int64
		Sleeps   []time.Duration
	}
	for _, tc := range []struct {
		name, method, after string
		want                outcome
	}{
		{"GET waits", "GET", "2", outcome{200, 2, []time.Duration{2 * time.Second}}},
		{"POST is not repeated", "POST", "2", outcome{503, 1, nil}},
		{"longer than MaxPushback", "GET", "120", outcome{503, 1, nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, "", func(n int64, w http.ResponseWriter, r *http.Request) {
				if n == 1 {
					w.Header().Set("Retry-After", tc.after)
					w.WriteHeader(http.StatusServiceUnavailable)
					return
				}
				io.WriteString(w, "ok")
			})
			c := newClient(t)
			tr, ev := retrying(t, c, 3)
			clock := clockcap.Virtual(time.Now())
			tr.Options.Clock, tr.Options.MaxPushback = clock, 10*time.Second
			req := get(t, context.Background(), s.url, "call")
			if tc.method == "POST" {
				req = post(t, context.Background(), s.url, "call", false)
			}
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			got := outcome{resp.StatusCode, s.received.Load(), clock.Sleeps()}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if tc.want.Status == 200 && !slices.Equal(ev.attemptLabels(), []string{"http-503", ""}) {
				t.Errorf("labels %q", ev.attemptLabels())
			}
		})
	}
}
