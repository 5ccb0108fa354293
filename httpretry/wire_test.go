package httpretry_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// TestSlowDiscardedBodyCutOff checks that draining a discarded body is
// bounded in time: a 503 whose body trickles at 10 bytes a second, with
// no deadline on the call, does not hold the retry up. Each discarded
// body gets a quarter of a second; the call, two discards and a third
// answer, returns well within 2s (the server would trickle for 5s per
// body) and its connections are closed, not reused.
func TestSlowDiscardedBodyCutOff(t *testing.T) {
	srv := newServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "64")
		w.WriteHeader(http.StatusServiceUnavailable)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for range 50 { // 5s at most
			if _, err := io.WriteString(w, "x"); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
			}
		}
	})
	tr := &httpretry.Transport{Budget: ownBudgets(), Base: newBase(t), Policy: schedule.Times{N: 3}, Options: retry.Options{AttemptTimeout: 100 * time.Millisecond}}
	start := time.Now()
	resp, err := tr.RoundTrip(variant{method: "GET"}.request(t, context.Background(), srv.URL))
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 || srv.requests.Load() != 3 || srv.opened.Load() != 3 {
		t.Errorf("status %d after %d requests on %d connections; want 503 after 3 on 3", resp.StatusCode, srv.requests.Load(), srv.opened.Load())
	}
	if elapsed > 2*time.Second {
		t.Errorf("returned after %v; want two cut-off drains of 250ms, well under 2s", elapsed)
	}
	tr.CloseIdleConnections()
	waitClosed(t, srv)
}

// goAwayAlways answers every stream with GOAWAY(last stream 0) and hangs
// up: the request was not processed, and net/http sends it again on a new
// connection, without end (golang/go#52459).
func goAwayAlways(c, n int64) string { return "goaway" }

// TestGoAwayLoopBounded checks that a server which answers every stream
// with GOAWAY(0) gets at most four connections per attempt: the attempt
// fails with ErrDialLimit, which is retried on the schedule like a failed
// dial, so that a call with times(3) opens at most 12 connections. Without
// the bound net/http dials thousands of times a second until the
// deadline.
func TestGoAwayLoopBounded(t *testing.T) {
	cert, pool := testCert(t)
	for _, tc := range []struct {
		name string
		url  func(*h2Server) string
		base func(t *testing.T) *http.Transport
	}{
		{"h2c", func(s *h2Server) string { return s.URL() }, newH2Base},
		{"h2 over TLS", func(s *h2Server) string { return "https://" + s.ln.Addr().String() }, func(t *testing.T) *http.Transport {
			b := newBase(t)
			b.TLSClientConfig = &tls.Config{RootCAs: pool}
			b.ForceAttemptHTTP2 = true
			return b
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &h2Server{decide: goAwayAlways}
			if tc.name == "h2c" {
				srv.rawServer = newRaw(t, srv.serve)
			} else {
				srv.rawServer = newRaw(t, func(n int64, c *net.TCPConn, _ <-chan struct{}) {
					tc := tls.Server(c, &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2"}})
					if tc.Handshake() == nil {
						srv.serveConn(n, tc)
					}
				})
			}
			tr := &httpretry.Transport{Budget: ownBudgets(), Base: tc.base(t), Policy: schedule.Times{N: 3}}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			resp, err := tr.RoundTrip(variant{method: "GET"}.request(t, ctx, tc.url(srv)))
			if err == nil {
				resp.Body.Close()
			}
			if !errors.Is(err, httpretry.ErrDialLimit) || reported(err) != 3 {
				t.Errorf("err = %v; want ErrDialLimit after 3 attempts", err)
			}
			t.Logf("%d connections in %d attempts", srv.conns.Load(), reported(err))
			if n := srv.conns.Load(); n > 12 || n < 3 {
				t.Errorf("%d connections; want at most 3 attempts × 4", n)
			}
			tr.CloseIdleConnections()
		})
	}
}

// testCert returns httptest's certificate for 127.0.0.1 and a pool that
// trusts it.
func testCert(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	ts := httptest.NewUnstartedServer(http.NotFoundHandler())
	ts.StartTLS()
	defer ts.Close()
	return ts.TLS.Certificates[0], ts.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
}

// stalledBody is a response body that sends nothing until it is closed.
type stalledBody struct {
	once   sync.Once
	closed chan struct{}
}

func (b *stalledBody) Read([]byte) (int, error) { <-b.closed; return 0, net.ErrClosed }
func (b *stalledBody) Close() error             { b.once.Do(func() { close(b.closed) }); return nil }

// TestDrainBounds checks, on fake time, what ends the draining of a
// discarded body that never comes: 250ms, or the request's context if it
// ends first. The call then goes on (or ends with the context).
func TestDrainBounds(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cancel   time.Duration // when the caller cancels; 0: never
		want     time.Duration // when RoundTrip returns
		canceled bool
	}{
		{name: "time limit", want: 250 * time.Millisecond},
		{name: "context", cancel: 20 * time.Millisecond, want: 20 * time.Millisecond, canceled: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var bodies []*stalledBody
				base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
					b := &stalledBody{closed: make(chan struct{})}
					bodies = append(bodies, b)
					return &http.Response{StatusCode: 503, Status: "503 Service Unavailable", Body: b, Request: r}, nil
				})
				tr := &httpretry.Transport{Budget: ownBudgets(), Base: base, Policy: schedule.Times{N: 2}}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if tc.cancel > 0 {
					time.AfterFunc(tc.cancel, cancel)
				}
				start := time.Now()
				resp, err := tr.RoundTrip(variant{method: "GET"}.request(t, ctx, "http://stalled.test/"))
				elapsed := time.Since(start)
				if err == nil {
					resp.Body.Close()
				}
				if elapsed != tc.want || errors.Is(err, context.Canceled) != tc.canceled || len(bodies) != 2-btoi(tc.canceled) {
					t.Errorf("returned after %v with %v and %d attempts; want %v, canceled %v", elapsed, err, len(bodies), tc.want, tc.canceled)
				}
			})
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
