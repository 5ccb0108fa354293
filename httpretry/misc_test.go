package httpretry_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// records is a slog handler that keeps what it is given.
type records struct {
	mu   sync.Mutex
	msgs []string
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *records) WithGroup(string) slog.Handler            { return r }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	var b strings.Builder
	b.WriteString(rec.Level.String() + " " + rec.Message)
	rec.Attrs(func(a slog.Attr) bool {
		b.WriteString(" " + a.String())
		return true
	})
	r.mu.Lock()
	r.msgs = append(r.msgs, b.String())
	r.mu.Unlock()
	return nil
}

// TestObserverLogAndHook checks the Observer as a log and as a hook:
// retry.LogObserver writes a debug record per retry, and an ObserverFunc
// sees a Retrying event per retry, under the request's context, with the
// attempt, the *StatusError and the delay; nothing for the attempt that
// succeeds.
func TestObserverLogAndHook(t *testing.T) {
	srv := newServer(t, func(n int64, w http.ResponseWriter, _ *http.Request) {
		if n < 3 {
			w.WriteHeader(http.StatusGatewayTimeout)
		}
	})
	rec := &records{}
	type reqKey struct{}
	var calls []string
	hook := retry.ObserverFunc(func(ctx context.Context, e retry.Event) {
		if e.Kind != retry.Retrying {
			return
		}
		var se *httpretry.StatusError
		if !errors.As(e.Err, &se) {
			t.Errorf("Retrying: err = %v; want a *StatusError", e.Err)
		}
		name, _ := ctx.Value(reqKey{}).(string) // the request's context
		calls = append(calls, name+" "+strings.Repeat("+", e.Attempt)+" "+se.Status+" "+e.Delay.String())
	})
	tr := &httpretry.Transport{
		Budget:  ownBudgets(),
		Base:    newBase(t),
		Policy:  schedule.Intersect{A: schedule.Spaced{Every: time.Millisecond}, B: schedule.Times{N: 3}},
		Options: retry.Options{Caps: retry.Caps{Clock: newVirtual()}, Observer: retry.Observers(retry.LogObserver(slog.New(rec)), hook)},
	}
	ctx := context.WithValue(context.Background(), reqKey{}, "quote")
	req := variant{method: "GET"}.request(t, ctx, srv.URL)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if diff := cmp.Diff([]string{"quote + 504 Gateway Timeout 1ms", "quote ++ 504 Gateway Timeout 1ms"}, calls); diff != "" {
		t.Errorf("Retrying events (-want +got):\n%s", diff)
	}
	target := srv.URL // scheme://host:port
	want := []string{
		"DEBUG retry attempt=1 delay=1ms label=http-504 target=" + target + " err=HTTP 504 Gateway Timeout",
		"DEBUG retry attempt=2 delay=1ms label=http-504 target=" + target + " err=HTTP 504 Gateway Timeout",
	}
	if diff := cmp.Diff(want, rec.msgs); diff != "" {
		t.Errorf("log records (-want +got):\n%s", diff)
	}
}

// TestConcurrentCalls shares one Transport among goroutines whose calls
// each need retries; run with -race.
func TestConcurrentCalls(t *testing.T) {
	srv := newServer(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		if n%3 != 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	// Two in three attempts fail, whoever makes them: beyond what a budget
	// allows, and a call may meet many failures in a row while the other
	// goroutines take the successes. With 10 retries one call in about 60
	// ran out ((2/3)^11); 60 make that about one in 4·10^10.
	tr := &httpretry.Transport{Base: newBase(t), Policy: schedule.Times{N: 60}, Breaker: counter(t), Options: retry.Options{Unthrottled: true}}
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for range 20 {
		wg.Go(func() {
			resp, err := tr.RoundTrip(variant{method: "GET"}.request(t, context.Background(), srv.URL))
			if err != nil {
				errs <- err
				return
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				errs <- errors.New(resp.Status)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	st := tr.Breaker.Get(srv.URL).Stats()
	if got := st.Successes + st.Failures; got != uint64(srv.requests.Load()) || st.Successes != 20 {
		t.Errorf("breaker counted %d successes and %d failures for %d requests; want 20 and the rest", st.Successes, st.Failures, srv.requests.Load())
	}
}

// TestUpgradeKeepsWritableBody checks a 101 Switching Protocols response
// through Options.AttemptTimeout's body wrapper: the body is still writable, as
// net/http makes it, so the upgraded connection works both ways.
func TestUpgradeKeepsWritableBody(t *testing.T) {
	srv := newServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		io.WriteString(brw, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
		brw.Flush()
		line, _ := brw.ReadString('\n')
		io.WriteString(brw, "echo: "+line)
		brw.Flush()
	})
	tr := &httpretry.Transport{Budget: ownBudgets(), Base: newBase(t), Policy: schedule.Times{N: 2}, Options: retry.Options{AttemptTimeout: time.Minute}}
	req := variant{method: "GET"}.request(t, context.Background(), srv.URL)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "echo")
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rw, ok := resp.Body.(io.ReadWriteCloser)
	if resp.StatusCode != http.StatusSwitchingProtocols || !ok {
		t.Fatalf("status %d, body writable %v; want 101 and true", resp.StatusCode, ok)
	}
	io.WriteString(rw, "hello\n")
	line, err := bufio.NewReader(rw).ReadString('\n')
	if err != nil || line != "echo: hello\n" {
		t.Errorf("read %q, %v; want \"echo: hello\\n\"", line, err)
	}
}

// TestNilResponseFromBase checks that a Base breaking the RoundTripper
// contract gets an error, not a panic.
func TestNilResponseFromBase(t *testing.T) {
	tr := &httpretry.Transport{Budget: ownBudgets(), Base: roundTripFunc(func(*http.Request) (*http.Response, error) { return nil, nil }), Policy: schedule.Times{N: 3}}
	resp, err := tr.RoundTrip(variant{method: "GET"}.request(t, context.Background(), "http://x.test"))
	if resp != nil || err == nil || !strings.Contains(err.Error(), "nil *Response") {
		t.Errorf("RoundTrip = %v, %v; want an error about the nil response", resp, err)
	}
}
