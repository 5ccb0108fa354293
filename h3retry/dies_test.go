package h3retry_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/h3retry"
)

// TestServerKilledMidRequest: the server is killed while it handles a
// request (its UDP socket closed, so no CONNECTION_CLOSE is sent) and a
// new one is started on the same port. The client finds out from its
// QUIC idle timeout; the attempt's connection is lost. A GET, and a POST
// with an Idempotency-Key, are sent again on a new connection, to the new
// server; a POST without a key is not: the killed server had it, and may
// have processed it. Two connections are dialed at most, and no request
// runs to completion twice.
func TestServerKilledMidRequest(t *testing.T) {
	type outcome struct {
		Old, New int // the times each server's handler ran
		Labels   []string
		OK       bool
	}
	for _, tc := range []struct {
		name string
		req  func(t *testing.T, url string) *http.Request
		want outcome
	}{
		{"GET", func(t *testing.T, url string) *http.Request { return get(t, context.Background(), url, "call") },
			outcome{1, 1, []string{"connection", ""}, true}},
		{"POST with a key", func(t *testing.T, url string) *http.Request {
			r := post(t, context.Background(), url, "call", false)
			r.Header.Set("Idempotency-Key", "k-1")
			return r
		}, outcome{1, 1, []string{"connection", ""}, true}},
		{"POST", func(t *testing.T, url string) *http.Request { return post(t, context.Background(), url, "call", false) },
			outcome{1, 0, []string{"connection"}, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			oldL, newL := &ledger{}, &ledger{}
			in := make(chan struct{})
			old := newServer(t, "", func(_ int64, w http.ResponseWriter, r *http.Request) {
				oldL.run(r)
				close(in)
				<-r.Context().Done()
			})
			c := newClient(t)
			tr, ev := retrying(t, c, 3)
			start := time.Now()
			type result struct {
				resp *http.Response
				err  error
			}
			done := make(chan result, 1)
			req := tc.req(t, old.url)
			go func() {
				resp, err := tr.RoundTrip(req)
				done <- result{resp, err}
			}()
			<-in
			old.kill()
			newServer(t, old.conn.LocalAddr().String(), func(_ int64, w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, "new processed "+newL.run(r))
			})
			res := <-done
			resp, err := res.resp, res.err
			if err == nil {
				resp.Body.Close()
			} else if h3retry.Unprocessed(err) {
				t.Errorf("err = %v: unprocessed; want a lost connection", err)
			}
			got := outcome{oldL.count("call"), newL.count("call"), ev.attemptLabels(), err == nil}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s (err %v)", diff, err)
			}
			if d := c.dials.Load(); d > 2 {
				t.Errorf("%d dials; want at most 2", d)
			}
			t.Logf("%v, %d dials", time.Since(start).Round(time.Millisecond), c.dials.Load())
		})
	}
}

// TestCrashLoopBounded: every QUIC connection the server accepts is
// closed at once (H3_INTERNAL_ERROR), as by a backend in a crash loop.
// Ten GETs on times(3) make the attempts that gRFC A6's token bucket
// allows (3 + 2 + one for each of the other eight: 13, not 30), and each
// attempt opens at most two connections (quic-go's own resend is the
// second): a bounded number of dials, not a storm.
func TestCrashLoopBounded(t *testing.T) {
	url, conns := newCrasher(t)
	c := newClient(t)
	tr, ev := retrying(t, c, 3)
	for i := range 10 {
		_, err := tr.RoundTrip(get(t, context.Background(), url, fmt.Sprint("call-", i)))
		if err == nil {
			t.Fatalf("GET %d: no error", i)
		}
	}
	if n := ev.attempts(); n != 13 {
		t.Errorf("%d attempts; want 13", n)
	}
	if d := c.dials.Load(); d > 2*int64(ev.attempts()) || conns.Load() > d {
		t.Errorf("%d dials, %d connections accepted, for %d attempts", d, conns.Load(), ev.attempts())
	}
	for _, lb := range ev.attemptLabels() {
		if lb != "dial" && lb != "connection" {
			t.Errorf("attempt labeled %q; want dial or connection", lb)
		}
	}
	t.Logf("%d dials, %d connections accepted, labels %q", c.dials.Load(), conns.Load(), ev.attemptLabels())
}

// TestDeadServerBounded: nothing listens on the port. Each attempt dials
// once, its handshake times out (the client's HandshakeIdleTimeout, made
// short here), and
// nothing was sent: a GET and a POST without a key alike are tried on
// times(3), one dial per attempt, labeled dial.
func TestDeadServerBounded(t *testing.T) {
	url := closedPort(t)
	for _, method := range []string{"GET", "POST"} {
		t.Run(method, func(t *testing.T) {
			c := newClient(t)
			c.QUICConfig.HandshakeIdleTimeout = 300 * time.Millisecond
			tr, ev := retrying(t, c, 3)
			req := get(t, context.Background(), url, "call")
			if method == "POST" {
				req = post(t, context.Background(), url, "call", false)
			}
			_, err := tr.RoundTrip(req)
			if !h3retry.Unprocessed(err) {
				t.Errorf("err = %v; want it unprocessed", err)
			}
			got := []any{ev.attempts(), c.dials.Load(), ev.attemptLabels()}
			if diff := cmp.Diff([]any{3, int64(3), []string{"dial", "dial", "dial"}}, got); diff != "" {
				t.Errorf("attempts, dials, labels (-want +got):\n%s", diff)
			}
		})
	}
}
