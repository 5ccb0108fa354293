package h3retry_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quic-go/quic-go/http3"
	"github.com/recur-go/recur/h3retry"
)

// rejecting starts quic-go's http3.Server with a handler that rejects the
// first n request streams with H3_REQUEST_REJECTED, before reading them,
// and processes every later one, recording it.
func rejecting(t *testing.T, n int64) (*server, *ledger) {
	l := &ledger{}
	s := newServer(t, "", func(k int64, w http.ResponseWriter, r *http.Request) {
		if k <= n {
			reject(t, w)
			return
		}
		io.WriteString(w, "processed "+l.run(r))
	})
	return s, l
}

// TestRejectedStreamResent: a server rejects the first streams with
// H3_REQUEST_REJECTED. A POST without an idempotency key, which the
// server did not process, is sent again until it is processed, exactly
// once per rejection: quic-go's http3.Transport resends it once itself,
// on a new connection, and h3retry's Transport makes a new attempt for
// each rejection past that, on times(3). The handler processes it once,
// the rejected attempts are labeled refused-stream and count nothing
// against the target's breaker.
func TestRejectedStreamResent(t *testing.T) {
	type outcome struct {
		Streams   int64 // the request streams the server received
		Processed int   // the times the handler processed the POST
		Attempts  int   // httpretry's attempts
		Labels    []string
		Failures  uint64 // what the breaker counted against the target
		OK        bool
	}
	for _, tc := range []struct {
		name    string
		rejects int64
		want    outcome
	}{
		{"one rejection, resent by quic-go", 1, outcome{2, 1, 1, []string{""}, 0, true}},
		{"two, the second resent by h3retry", 2, outcome{3, 1, 2, []string{"refused-stream", ""}, 0, true}},
		{"three", 3, outcome{4, 1, 2, []string{"refused-stream", ""}, 0, true}},
		{"five", 5, outcome{6, 1, 3, []string{"refused-stream", "refused-stream", ""}, 0, true}},
		{"six: every attempt rejected", 6, outcome{6, 0, 3, []string{"refused-stream", "refused-stream", "refused-stream"}, 0, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, l := rejecting(t, tc.rejects)
			c := newClient(t)
			tr, ev := retrying(t, c, 3)
			resp, err := tr.RoundTrip(post(t, context.Background(), s.url, "order-1", false))
			got := outcome{Streams: s.received.Load(), Processed: l.count("order-1"), Attempts: ev.attempts(),
				Labels: ev.attemptLabels(), Failures: tr.Breaker.Get(s.url).Stats().Failures, OK: err == nil}
			if err == nil {
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if string(body) != "processed order-1" {
					t.Errorf("body %q", body)
				}
			} else if !h3retry.Unprocessed(err) || !isRejected(err) {
				t.Errorf("err = %v; want H3_REQUEST_REJECTED, unprocessed", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if d := c.dials.Load(); d > s.received.Load() {
				t.Errorf("%d dials for %d streams", d, s.received.Load())
			}
		})
	}
}

func isRejected(err error) bool {
	e, ok := errors.AsType[*http3.Error](err)
	return ok && e.ErrorCode == http3.ErrCodeRequestRejected
}

// TestRejectedWithoutH3retry is what the same servers do to a plain
// http3.Transport: it resends a rejected request once, and returns the
// second rejection.
func TestRejectedWithoutH3retry(t *testing.T) {
	for _, rejects := range []int64{1, 2} {
		s, l := rejecting(t, rejects)
		c := newClient(t)
		resp, err := c.RoundTrip(post(t, context.Background(), s.url, "order-1", false))
		if rejects == 1 {
			if err != nil {
				t.Fatalf("one rejection: %v", err)
			}
			resp.Body.Close()
		} else if !isRejected(err) {
			t.Fatalf("two rejections: err = %v; want H3_REQUEST_REJECTED", err)
		}
		want := 1 // processed by quic-go's own resend
		if rejects == 2 {
			want = 0 // returned after the second rejection
		}
		if l.count("order-1") != want || s.received.Load() != 2 {
			t.Errorf("%d rejections: %d streams, processed %d times; want 2 and %d", rejects, s.received.Load(), l.count("order-1"), want)
		}
	}
}

// TestRejectedOneShotBody: a rejected POST whose body cannot be sent
// again is returned, not resent, by quic-go and by h3retry alike: it was
// not processed, and the error says so.
func TestRejectedOneShotBody(t *testing.T) {
	s, l := rejecting(t, 1)
	c := newClient(t)
	tr, ev := retrying(t, c, 3)
	_, err := tr.RoundTrip(post(t, context.Background(), s.url, "order-1", true))
	if !isRejected(err) || !h3retry.Unprocessed(err) {
		t.Errorf("err = %v; want H3_REQUEST_REJECTED", err)
	}
	if s.received.Load() != 1 || l.total() != 0 || ev.attempts() != 1 {
		t.Errorf("%d streams, %d processed, %d attempts; want 1, 0, 1", s.received.Load(), l.total(), ev.attempts())
	}
}

// TestRejectedGet: a GET is resent on the same grounds, and labeled the
// same.
func TestRejectedGet(t *testing.T) {
	s, l := rejecting(t, 3)
	c := newClient(t)
	tr, ev := retrying(t, c, 3)
	resp, err := tr.RoundTrip(get(t, context.Background(), s.url, "quote"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if l.count("quote") != 1 || !slices.Equal(ev.attemptLabels(), []string{"refused-stream", ""}) {
		t.Errorf("processed %d times, labels %q", l.count("quote"), ev.attemptLabels())
	}
}
