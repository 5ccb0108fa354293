package httpretry_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/schedule"
)

// wrappers are Bases that are not *http.Transport, around one: what
// tracing and logging middleware do.
var wrappers = []struct {
	name string
	wrap func(http.RoundTripper) http.RoundTripper
}{
	{"func", func(b http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) { return b.RoundTrip(r) })
	}},
	{"own trace", func(b http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			var got atomic.Int64
			ctx := httptrace.WithClientTrace(r.Context(), &httptrace.ClientTrace{GetConn: func(string) { got.Add(1) }})
			return b.RoundTrip(r.WithContext(ctx))
		})
	}},
	{"two deep", func(b http.RoundTripper) http.RoundTripper {
		inner := roundTripFunc(func(r *http.Request) (*http.Response, error) { return b.RoundTrip(r) })
		return roundTripFunc(func(r *http.Request) (*http.Response, error) { return inner.RoundTrip(r.Clone(r.Context())) })
	}},
}

// TestGoAwayLoopBoundedThroughWrappers: the dial limit holds when Base
// wraps the *http.Transport. A server that answers every stream with
// GOAWAY(0) and hangs up got 26,000 connections in 2 s through a wrapped
// Base; now each attempt fails with ErrDialLimit after at most five
// (four counted, and one net/http had queued), so a call of times(3)
// opens at most 15.
func TestGoAwayLoopBoundedThroughWrappers(t *testing.T) {
	for _, w := range wrappers {
		t.Run(w.name, func(t *testing.T) {
			srv := newH2(t, goAwayAlways)
			base := newH2Base(t)
			tr := &httpretry.Transport{Budget: ownBudgets(), Base: w.wrap(base), Policy: schedule.Times{N: 3}}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			start := time.Now()
			resp, err := tr.RoundTrip(variant{method: "GET"}.request(t, ctx, srv.URL()))
			if err == nil {
				resp.Body.Close()
			}
			took := time.Since(start)
			if !errors.Is(err, httpretry.ErrDialLimit) || reported(err) != 3 {
				t.Errorf("err = %v; want ErrDialLimit after 3 attempts", err)
			}
			n := srv.conns.Load()
			t.Logf("%d connections in %d attempts, %v", n, reported(err), took)
			if n > 15 || n < 3 {
				t.Errorf("%d connections; want at most 3 attempts × 5", n)
			}
			if took > time.Second {
				t.Errorf("took %v; the loop should end long before the 2s deadline", took)
			}
			tr.CloseIdleConnections()
			base.CloseIdleConnections()
		})
	}
}

// TestWrappedBaseAnswers: through a wrapped Base a healthy server's
// response is read whole after RoundTrip returns (the attempt's context
// lives until the body is closed), the response's Request is the
// caller's, and one connection serves several calls.
func TestWrappedBaseAnswers(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		time.Sleep(20 * time.Millisecond) // the body comes after RoundTrip has returned
		io.WriteString(w, "ok")
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	for _, w := range wrappers {
		t.Run(w.name, func(t *testing.T) {
			base := newBase(t)
			before := conns.Load()
			tr := &httpretry.Transport{Budget: ownBudgets(), Base: w.wrap(base), Policy: schedule.Times{N: 3}}
			type got struct {
				Status  int
				Body    string
				SameReq bool
			}
			var gots []got
			for range 3 {
				req := variant{method: "GET"}.request(t, context.Background(), srv.URL)
				resp, err := tr.RoundTrip(req)
				if err != nil {
					t.Fatal(err)
				}
				b, err := io.ReadAll(resp.Body)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				gots = append(gots, got{resp.StatusCode, string(b), resp.Request == req})
			}
			want := []got{{200, "ok", true}, {200, "ok", true}, {200, "ok", true}}
			if diff := cmp.Diff(want, gots); diff != "" {
				t.Errorf("responses (-want +got):\n%s", diff)
			}
			if n := conns.Load() - before; n != 1 {
				t.Errorf("%d connections for 3 calls; want 1", n)
			}
			tr.CloseIdleConnections()
			base.CloseIdleConnections()
		})
	}
}

// boundedBase is a Base that says it opens at most max connections per
// RoundTrip, and reports whether an attempt came with a client trace
// that counts connections (httpretry's, since nothing else adds one).
type boundedBase struct {
	max    int
	traced atomic.Bool
}

func (b *boundedBase) MaxConnsPerRoundTrip() int { return b.max }

func (b *boundedBase) RoundTrip(r *http.Request) (*http.Response, error) {
	if tr := httptrace.ContextClientTrace(r.Context()); tr != nil && tr.GetConn != nil {
		b.traced.Store(true)
	}
	return &http.Response{StatusCode: 200, Body: http.NoBody, Request: r}, nil
}

// TestConnBounder: a Base that bounds its own connections per RoundTrip
// at four or fewer is not wrapped in the client trace that counts them;
// one that says zero, a negative number or more than four is, as is a
// Base that does not say, and a wrapper that hides it.
func TestConnBounder(t *testing.T) {
	for _, tc := range []struct {
		name   string
		max    int
		hide   bool
		traced bool
	}{
		{"2", 2, false, false},
		{"4", 4, false, false},
		{"5", 5, false, true},
		{"0", 0, false, true},
		{"-1", -1, false, true},
		{"hidden by a wrapper", 2, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &boundedBase{max: tc.max}
			var base http.RoundTripper = b
			if tc.hide {
				base = plainBase{b}
			}
			tr := &httpretry.Transport{Budget: ownBudgets(), Base: base}
			resp, err := tr.RoundTrip(variant{method: "GET"}.request(t, context.Background(), "http://x.test"))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if b.traced.Load() != tc.traced {
				t.Errorf("traced = %v; want %v", b.traced.Load(), tc.traced)
			}
		})
	}
}
