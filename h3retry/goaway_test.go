package h3retry_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/recur-go/recur/h3retry"
)

// TestGracefulShutdownMidFlight is a rolling restart with quic-go's own
// http3.Server: the old server shuts down gracefully while a request is
// in flight on its connection, and a new one takes over the listener.
// The old server sends GOAWAY past the stream in flight, which it
// finishes; POSTs without a key sent meanwhile on the same connection are
// either rejected by the old server (H3_REQUEST_REJECTED: at or past the
// GOAWAY's stream ID) or not sent at all (the client has the GOAWAY), and
// in both cases sent again on a new connection, to the new server. Every
// request is processed exactly once.
func TestGracefulShutdownMidFlight(t *testing.T) {
	udp := listenUDP(t, "")
	ln, err := quic.ListenEarly(udp, http3.ConfigureTLSConfig(serverTLS()), serverQUIC())
	if err != nil {
		t.Fatal(err)
	}
	url := "https://" + udp.LocalAddr().String()
	var mu sync.Mutex
	by := map[string]string{} // request ID → the server that processed it
	l := &ledger{}
	inSlow, release := make(chan struct{}), make(chan struct{})
	handler := func(name string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id := l.run(r)
			mu.Lock()
			by[id] = name
			mu.Unlock()
			if id == "slow" {
				close(inSlow)
				<-release
			}
			io.WriteString(w, name+" processed "+id)
		})
	}
	old, next := &http3.Server{Handler: handler("old")}, &http3.Server{Handler: handler("new")}
	oldDone, nextDone := make(chan error, 1), make(chan error, 1)
	go func() { oldDone <- old.ServeListener(ln) }()
	defer func() {
		next.Close()
		ln.Close()
		<-nextDone
		udp.Close()
	}()

	c := newClient(t)
	tr, _ := retrying(t, c, 3)
	slow := make(chan string, 1)
	go func() {
		resp, err := tr.RoundTrip(get(t, context.Background(), url, "slow"))
		if err != nil {
			slow <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		slow <- string(b)
	}()
	<-inSlow

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	shutdown := make(chan error, 1)
	go func() { shutdown <- old.Shutdown(ctx) }()
	<-oldDone // the old server accepts no more connections, and sends GOAWAY
	go func() { nextDone <- next.ServeListener(ln) }()

	const posts = 10
	answers := make([]string, posts)
	var wg sync.WaitGroup
	for i := range posts {
		wg.Go(func() {
			resp, err := tr.RoundTrip(post(t, context.Background(), url, fmt.Sprint("order-", i), false))
			if err != nil {
				answers[i] = err.Error()
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			answers[i] = string(b)
		})
	}
	wg.Wait()
	close(release)
	if got := <-slow; got != "old processed slow" {
		t.Errorf("the request in flight: %q; want the old server to finish it", got)
	}
	if err := <-shutdown; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	for i, a := range answers {
		if want := fmt.Sprint("new processed order-", i); a != want {
			t.Errorf("POST %d: %q; want %q", i, a, want)
		}
	}
	if twice := l.twice(); len(twice) > 0 {
		t.Errorf("processed more than once: %v", twice)
	}
	if l.total() != posts+1 {
		t.Errorf("%d requests processed; want %d", l.total(), posts+1)
	}
	if d := c.dials.Load(); d > 1+posts {
		t.Errorf("%d dials; want at most %d", d, 1+posts)
	}
	t.Logf("%d QUIC connections dialed", c.dials.Load())
}

// TestGoAwayEveryConnection is a fleet whose servers all drain: the first
// connections each get SETTINGS and GOAWAY(0) at once and have every
// request stream rejected, so nothing is processed on them; the ones
// after are served by http3.Server. quic-go resends a POST once, on a new
// connection; h3retry makes a new attempt each time that is not enough,
// so the POST is processed once, by the first connection that serves it.
// Each attempt opens at most two connections (a bound that holds however
// long the fleet drains), and an attempt that finds only draining
// connections is labeled dial (the GOAWAY came before the request was
// written) or refused-stream (it was rejected).
func TestGoAwayEveryConnection(t *testing.T) {
	type outcome struct {
		Processed int
		Attempts  int
		OK        bool
	}
	for _, tc := range []struct {
		draining int64
		want     outcome
	}{
		{1, outcome{1, 1, true}}, // quic-go's own resend is enough
		{2, outcome{1, 2, true}},
		{3, outcome{1, 3, true}},
		{4, outcome{0, 3, false}}, // times(3) has run out
		{50, outcome{0, 3, false}},
	} {
		t.Run(fmt.Sprint(tc.draining, " draining"), func(t *testing.T) {
			l := &ledger{}
			d := newDrainer(t, tc.draining, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, "processed "+l.run(r))
			}))
			c := newClient(t)
			tr, ev := retrying(t, c, 3)
			resp, err := tr.RoundTrip(post(t, context.Background(), d.url, "order-1", false))
			if err == nil {
				resp.Body.Close()
			} else if !h3retry.Unprocessed(err) {
				t.Errorf("err = %v; want it unprocessed", err)
			}
			got := outcome{l.count("order-1"), ev.attempts(), err == nil}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			for i, lb := range ev.attemptLabels()[:got.Attempts-1] {
				if lb != "dial" && lb != "refused-stream" {
					t.Errorf("attempt %d labeled %q", i+1, lb)
				}
			}
			if n := d.conns.Load(); n > 2*int64(got.Attempts) {
				t.Errorf("%d connections for %d attempts", n, got.Attempts)
			}
			t.Logf("%d connections, %d streams rejected, labels %q", d.conns.Load(), d.rejected.Load(), ev.attemptLabels())
		})
	}
}
