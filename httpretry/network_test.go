package httpretry_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// attempts is what a call did: how many connections (attempts) the server
// saw, and, if it failed, how many attempts the runner reported.
type attempts struct {
	Conns    int64
	Reported int // the *retry.Error's Attempts; 0 when the error is not one
}

func reported(err error) int {
	var re *retry.Error
	if errors.As(err, &re) {
		return re.Attempts
	}
	return 0
}

// TestBrokenConnections runs GET and POST (without a key) against raw
// servers that break the connection after reading the request: GET is
// retried to the end of the policy, POST is sent once because the server
// may have processed it.
func TestBrokenConnections(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handle  func(int64, *net.TCPConn, <-chan struct{})
		timeout time.Duration
		is      error // what errors.Is must find in the error
	}{
		{name: "reset", handle: reset},
		{name: "close without answer", handle: hangUp},
		{name: "hang past the attempt timeout", handle: hang, timeout: 50 * time.Millisecond, is: httpretry.ErrAttemptTimeout},
	} {
		for _, v := range []variant{
			{name: "GET", method: "GET"},
			{name: "PUT", method: "PUT", body: "rewind"},
			{name: "POST", method: "POST", body: "rewind"},
			{name: "POST+key", method: "POST", key: "Idempotency-Key", body: "rewind"},
		} {
			t.Run(tc.name+"/"+v.name, func(t *testing.T) {
				srv := newRaw(t, tc.handle)
				tr := &httpretry.Transport{Budget: ownBudgets(), Base: newBase(t), Policy: schedule.Times{N: 3}, Options: retry.Options{AttemptTimeout: tc.timeout}}
				resp, err := tr.RoundTrip(v.request(t, context.Background(), srv.URL()))
				if err == nil {
					resp.Body.Close()
					t.Fatalf("RoundTrip answered %s; want an error", resp.Status)
				}
				want := attempts{Conns: 1}
				if v.repeatable() {
					want = attempts{Conns: 3, Reported: 3}
				}
				if diff := cmp.Diff(want, attempts{srv.conns.Load(), reported(err)}); diff != "" {
					t.Errorf("err = %v (-want +got):\n%s", err, diff)
				}
				if tc.is != nil && !errors.Is(err, tc.is) {
					t.Errorf("err = %v; want errors.Is %v", err, tc.is)
				}
			})
		}
	}
}

// TestConnectionRefusedAnyMethod checks that a request that never reached
// the server — the connection was refused — is retried whatever its
// method, and that the error says so.
func TestConnectionRefusedAnyMethod(t *testing.T) {
	url := closedPort(t)
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			var dials atomic.Int64
			base := newBase(t)
			base.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
				dials.Add(1)
				return (&net.Dialer{}).DialContext(ctx, network, addr)
			}
			tr := &httpretry.Transport{Budget: ownBudgets(), Base: base, Policy: schedule.Times{N: 3}}
			_, err := tr.RoundTrip(v.request(t, context.Background(), url))
			if !errors.Is(err, syscall.ECONNREFUSED) {
				t.Fatalf("err = %v; want connection refused", err)
			}
			want := attempts{Conns: 3, Reported: 3}
			if v.body == "once" { // the body is gone with the first attempt
				want = attempts{Conns: 1}
			}
			if diff := cmp.Diff(want, attempts{dials.Load(), reported(err)}); diff != "" {
				t.Errorf("err = %v (-want +got):\n%s", err, diff)
			}
		})
	}
}

// TestTruncatedBody checks a server that sends a 200's headers and closes
// in the middle of the body: the response is the caller's once its
// headers are in, so it is returned, attempted once, and the caller sees
// the body break.
func TestTruncatedBody(t *testing.T) {
	srv := newRaw(t, truncate)
	tr := &httpretry.Transport{Budget: ownBudgets(), Base: newBase(t), Policy: schedule.Times{N: 3}}
	resp, err := tr.RoundTrip(variant{method: "GET"}.request(t, context.Background(), srv.URL()))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("reading body: %v; want io.ErrUnexpectedEOF", err)
	}
	if diff := cmp.Diff("partial", string(b)); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
	if n := srv.conns.Load(); n != 1 {
		t.Errorf("server saw %d connections; want 1", n)
	}
}

// TestCallerCancelNotRetried cancels a GET while the server holds it: the
// call returns the cancellation at once, unretried.
func TestCallerCancelNotRetried(t *testing.T) {
	arrived := make(chan struct{}, 1)
	srv := newRaw(t, func(n int64, c *net.TCPConn, done <-chan struct{}) {
		readRequest(c)
		arrived <- struct{}{}
		<-done
	})
	tr := &httpretry.Transport{Budget: ownBudgets(), Base: newBase(t), Policy: schedule.Times{N: 3}}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel()
	}()
	_, err := tr.RoundTrip(variant{method: "GET"}.request(t, ctx, srv.URL()))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v; want context.Canceled", err)
	}
	if diff := cmp.Diff(attempts{Conns: 1}, attempts{srv.conns.Load(), reported(err)}); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestHangingServerBoundedByDeadline checks that a server that never
// answers cannot hold a call past its context's deadline: the call
// returns — which, with a server that never answers, only the deadline
// can make it do — with context.DeadlineExceeded. (deadline_test.go
// measures the timing itself on a fake clock.)
func TestHangingServerBoundedByDeadline(t *testing.T) {
	srv := newRaw(t, hang)
	tr := &httpretry.Transport{Budget: ownBudgets(), Base: newBase(t), Policy: schedule.Times{N: 5}}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := tr.RoundTrip(variant{method: "GET"}.request(t, ctx, srv.URL()))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v; want context.DeadlineExceeded", err)
	}
	if n := srv.conns.Load(); n != 1 {
		t.Errorf("server saw %d connections; want 1", n)
	}
}

// TestAttemptTimeoutHeadersOnly checks that AttemptTimeout stops once the
// headers are in: a body that takes longer than the timeout to arrive is
// still read whole.
func TestAttemptTimeoutHeadersOnly(t *testing.T) {
	release := make(chan struct{})
	srv := newServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "first half, ")
		w.(http.Flusher).Flush()
		<-release
		io.WriteString(w, "second half")
	})
	tr := &httpretry.Transport{Budget: ownBudgets(), Base: newBase(t), Policy: schedule.Times{N: 3}, Options: retry.Options{AttemptTimeout: 20 * time.Millisecond}}
	time.AfterFunc(100*time.Millisecond, func() { close(release) }) // well past the attempt timeout
	resp, err := tr.RoundTrip(variant{method: "GET"}.request(t, context.Background(), srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	if diff := cmp.Diff("first half, second half", string(b)); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
}

// TestNoScheduleDefaultPolicy checks the zero Transport: a GET that was
// refused is made on retry.DefaultSchedule, three attempts in all, and
// WithoutRetry makes one, with Base's error as it returned it.
func TestNoScheduleDefaultPolicy(t *testing.T) {
	var dials atomic.Int64
	base := newBase(t)
	base.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	tr := &httpretry.Transport{Base: base, Budget: ownBudgets(), Options: retry.Options{Caps: retry.Caps{Clock: clockcap.Virtual(time.Now())}}}
	url := closedPort(t)
	_, err := tr.RoundTrip(variant{method: "GET"}.request(t, context.Background(), url))
	var re *retry.Error
	if !errors.As(err, &re) || re.Attempts != 3 || dials.Load() != 3 {
		t.Errorf("zero Transport: err = %v after %d dials; want a give-up after 3 attempts", err, dials.Load())
	}
	dials.Store(0)
	_, err = tr.RoundTrip(variant{method: "GET"}.request(t, httpretry.WithoutRetry(context.Background()), url))
	if _, ok := err.(*net.OpError); !ok || dials.Load() != 1 {
		t.Errorf("WithoutRetry: err = %#v after %d dials; want the *net.OpError of one dial", err, dials.Load())
	}
}

// A hundred GETs against a dead server, with no throttle configured,
// make 103 attempts where the policy alone would make 300: the target's
// shared default budget (A6's 10 tokens) allows three retries before it is
// below half, whether the policy is the Transport's default, its own or a
// request's WithSchedule. Options.Unthrottled is the named way to 300.
func TestDeadTargetThrottledByDefault(t *testing.T) {
	for _, tc := range []struct {
		name string
		tr   func() *httpretry.Transport
		ctx  func() context.Context
		want int64
	}{
		{"default policy", func() *httpretry.Transport { return &httpretry.Transport{} }, context.Background, 103},
		{"Policy", func() *httpretry.Transport { return &httpretry.Transport{Policy: retry.DefaultSchedule()} }, context.Background, 103},
		{"WithSchedule", func() *httpretry.Transport { return &httpretry.Transport{Policy: schedule.Times{N: 1}} },
			func() context.Context { return httpretry.WithSchedule(context.Background(), retry.DefaultSchedule()) }, 103},
		{"Unthrottled", func() *httpretry.Transport { return &httpretry.Transport{Options: retry.Options{Unthrottled: true}} }, context.Background, 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var dials atomic.Int64
			base := newBase(t)
			base.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
				dials.Add(1)
				return (&net.Dialer{}).DialContext(ctx, network, addr)
			}
			tr := tc.tr()
			tr.Base = base
			tr.Options.Caps = retry.Caps{Clock: clockcap.Virtual(time.Now())}
			url := closedPort(t) // a target of this test's own: a port just freed
			for range 100 {
				if _, err := tr.RoundTrip(variant{method: "GET"}.request(t, tc.ctx(), url)); err == nil {
					t.Fatal("a GET to a closed port succeeded")
				}
			}
			t.Logf("100 GETs, %d attempts", dials.Load())
			if got := dials.Load(); got != tc.want {
				t.Errorf("100 GETs made %d attempts; want %d", got, tc.want)
			}
		})
	}
}

// A request whose context is already done is never sent: RoundTrip
// returns the context's error at once, and Base is not called.
func TestDoneContextNeverSent(t *testing.T) {
	calls := 0
	base := roundTripFunc(func(*http.Request) (*http.Response, error) { calls++; return nil, errors.New("sent") })
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	for _, tr := range []*httpretry.Transport{{Base: base}, {Base: base, Hedge: schedule.Times{N: 2}}} {
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://x.test/", nil)
		if _, err := tr.RoundTrip(req); !errors.Is(err, context.DeadlineExceeded) || calls != 0 {
			t.Errorf("RoundTrip with an expired context: %v after %d calls of Base; want the deadline and none", err, calls)
		}
	}
}
