package natsretry_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/retry"

	"github.com/recur-go/recur/natsretry"
)

// TestResponder503HandledOnce: a responder that answers with no data and
// a Status: 503 header handled the request; nats.go takes that reply for
// no responders. Not marked, the request is handled exactly once and the
// reply comes back; marked WithIdempotent, it is sent again on the
// policy. The matrix covers Request and RequestMsg, and a responder that
// also sets a Nats-Subject header other than the request's subject or
// adds one of its own.
func TestResponder503HandledOnce(t *testing.T) {
	nc := startServer(t)
	headers := map[string]nats.Header{
		"status":         {"Status": {"503"}},
		"description":    {"Status": {"503"}, "Description": {"busy"}},
		"other-subject":  {"Status": {"503"}, "Nats-Subject": {"svc.elsewhere"}},
		"subject-and-id": {"Status": {"503"}, "Nats-Subject": {"SUBJ"}, "Id": {"7"}},
	}
	type outcome struct {
		Handled int64
		Reply   bool   // a reply came back
		Code    string // Code of the error
		Retries []string
	}
	for hname, h := range headers {
		for _, tc := range []struct {
			name string
			mark func(context.Context) context.Context
			want outcome
		}{
			{"unmarked", unmarked, outcome{Handled: 1, Reply: true, Code: "ok"}},
			{"idempotent", natsretry.WithIdempotent, outcome{Handled: 3, Reply: true, Code: "unavailable", Retries: []string{"unavailable", "unavailable"}}},
		} {
			for _, msg := range []bool{false, true} {
				name := hname + "/" + tc.name
				if msg {
					name += "/msg"
				}
				t.Run(name, func(t *testing.T) {
					subj := "svc.busy." + hname + "." + tc.name
					if msg {
						subj += ".msg"
					}
					var handled atomic.Int64
					sub, err := nc.Subscribe(subj, func(m *nats.Msg) {
						handled.Add(1)
						reply := nats.Header{}
						for k, v := range h {
							if v[0] == "SUBJ" {
								v = []string{subj}
							}
							reply[k] = v
						}
						_ = m.RespondMsg(&nats.Msg{Header: reply})
					})
					if err != nil {
						t.Fatal(err)
					}
					defer sub.Unsubscribe()
					if err := nc.Flush(); err != nil {
						t.Fatal(err)
					}
					var retries []string
					r, err := natsretry.New(nc, natsretry.Config{Policy: parse.MustParse("spaced(10ms) & times(3)"), Options: retry.Options{
						Unthrottled: true, // these tests count retries: no budget shared across them
						Observer:    onRetry(func(e retry.Event) { retries = append(retries, e.Label) }),
					}})
					if err != nil {
						t.Fatal(err)
					}
					ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
					defer cancel()
					var reply *nats.Msg
					if msg {
						reply, err = r.RequestMsg(tc.mark(ctx), &nats.Msg{Subject: subj, Header: nats.Header{"X": {"1"}}})
					} else {
						reply, err = r.Request(tc.mark(ctx), subj, nil)
					}
					// Let a resent request reach the responder before counting.
					time.Sleep(50 * time.Millisecond)
					got := outcome{Handled: handled.Load(), Reply: reply != nil, Code: natsretry.Code(err), Retries: retries}
					if tc.name == "idempotent" {
						var re *retry.Error
						if !errors.As(err, &re) || re.Label != natsretry.CodeUnavailable {
							t.Errorf("got %v, want a *retry.Error labelled unavailable", err)
						}
					}
					if diff := cmp.Diff(tc.want, got); diff != "" {
						t.Errorf("(-want +got)\n%s", diff)
					}
					if reply != nil && reply.Header.Get("Status") != "503" {
						t.Errorf("reply headers %v, want the responder's", reply.Header)
					}
				})
			}
		}
	}
}

// TestServerNoRespondersStillRetried: the server's own no-responders
// status (with its Nats-Subject header) is still nats.ErrNoResponders to
// a request, marked or not, retried, and returned when the policy ends.
func TestServerNoRespondersStillRetried(t *testing.T) {
	nc := startServer(t)
	for _, mark := range []func(context.Context) context.Context{unmarked, natsretry.WithIdempotent} {
		r, codes := requester(t, nc, "spaced(5ms) & times(3)", 0)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := r.Request(mark(ctx), "svc.nobody.at.all", nil)
		cancel()
		if !errors.Is(err, nats.ErrNoResponders) {
			t.Errorf("got %v, want nats.ErrNoResponders", err)
		}
		if diff := cmp.Diff([]string{"no-responders", "no-responders"}, *codes); diff != "" {
			t.Errorf("retries (-want +got)\n%s", diff)
		}
	}
}

// TestServerStoppedDeadline: with the server gone (the connection
// reconnecting), the caller's deadline and the attempt timeout bound
// every request, marked or not: each returns within its bound + 50 ms.
func TestServerStoppedDeadline(t *testing.T) {
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(5 * time.Second) {
		s.Shutdown()
		t.Fatal("nats-server not ready within 5s")
	}
	nc, err := nats.Connect(s.ClientURL(), nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond))
	if err != nil {
		s.Shutdown()
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	s.Shutdown()
	s.WaitForShutdown()
	deadline := time.Now().Add(2 * time.Second)
	for nc.IsConnected() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if nc.IsConnected() {
		t.Fatal("still connected 2s after the server stopped")
	}
	for _, tc := range []struct {
		name    string
		mark    func(context.Context) context.Context
		attempt time.Duration
		bound   time.Duration // the context's timeout
		within  time.Duration // how long the request may take
	}{
		{"unmarked", unmarked, 0, 200 * time.Millisecond, 200 * time.Millisecond},
		{"idempotent", natsretry.WithIdempotent, 0, 200 * time.Millisecond, 200 * time.Millisecond},
		{"unmarked-attempt", unmarked, 100 * time.Millisecond, time.Second, 100 * time.Millisecond},
		{"idempotent-attempt", natsretry.WithIdempotent, 100 * time.Millisecond, 300 * time.Millisecond, 300 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := requester(t, nc, "spaced(10ms)", tc.attempt)
			ctx, cancel := context.WithTimeout(context.Background(), tc.bound)
			defer cancel()
			start := time.Now()
			_, err := r.Request(tc.mark(ctx), "svc.echo", []byte("hi"))
			took := time.Since(start)
			if err == nil {
				t.Fatal("a reply with the server stopped")
			}
			if took > tc.within+50*time.Millisecond {
				t.Errorf("returned after %v, want within %v + 50ms (%v)", took, tc.within, err)
			}
			if code := natsretry.Code(err); code != natsretry.CodeTimeout {
				t.Errorf("Code %q (%v), want timeout", code, err)
			}
		})
	}
}

// A hundred requests with nobody listening, marked or not, on the zero
// Config (the default policy and the server's shared default budget),
// make 103 attempts where the policy alone would make 300: the A6 bucket
// allows three retries before it is below half. Unthrottled makes 300. A
// Config.Budget registry of the same budgets throttles alike, with the
// budget of the server's URL.
func TestNoRespondersThrottledByDefault(t *testing.T) {
	for _, tc := range []struct {
		name        string
		mark        func(context.Context) context.Context
		unthrottled bool
		registry    bool
		want        int
	}{
		{"default", unmarked, false, false, 103},
		{"default-idempotent", natsretry.WithIdempotent, false, false, 103},
		{"Unthrottled", unmarked, true, false, 300},
		{"registry", unmarked, false, true, 103},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nc := startServer(t) // a server, so a target, of this test's own
			attempts := 0
			var budgets *budget.Registry
			if tc.registry {
				var err error
				if budgets, err = budget.NewRegistry(budget.DefaultConfig(), 0); err != nil {
					t.Fatal(err)
				}
			}
			r, err := natsretry.New(nc, natsretry.Config{Budget: budgets, Options: retry.Options{
				Caps:        retry.Caps{Clock: clockcap.Virtual(time.Now())},
				Unthrottled: tc.unthrottled,
				Observer: retry.ObserverFunc(func(_ context.Context, e retry.Event) {
					if e.Kind == retry.Attempted {
						attempts++
					}
				}),
			}})
			if err != nil {
				t.Fatal(err)
			}
			for range 100 {
				// No deadline: the virtual clock's waits add up past any
				// real one. The server answers no-responders at once.
				_, err := r.Request(tc.mark(context.Background()), "svc.nobody.at.all", nil)
				if !errors.Is(err, nats.ErrNoResponders) {
					t.Fatalf("got %v, want nats.ErrNoResponders", err)
				}
			}
			t.Logf("100 requests, %d attempts", attempts)
			if attempts != tc.want {
				t.Errorf("100 requests made %d attempts; want %d", attempts, tc.want)
			}
			if tc.registry {
				var targets []string
				for target := range budgets.All() {
					targets = append(targets, target)
				}
				if diff := cmp.Diff([]string{nc.ConnectedUrl()}, targets); diff != "" {
					t.Errorf("the registry's targets (-want +got)\n%s", diff)
				}
			}
		})
	}
}

// A request whose context is already done is never sent, marked or not.
func TestDoneContextNeverSent(t *testing.T) {
	nc := startServer(t)
	var handled atomic.Int64
	sub, err := nc.Subscribe("svc.count", func(m *nats.Msg) { handled.Add(1); _ = m.Respond([]byte("ok")) })
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	_ = nc.Flush()
	r, err := natsretry.New(nc, natsretry.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, mark := range []func(context.Context) context.Context{unmarked, natsretry.WithIdempotent} {
		if _, err := r.Request(mark(ctx), "svc.count", nil); !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
	}
	_ = nc.Flush()
	time.Sleep(20 * time.Millisecond) // a request sent would be handled by now
	if n := handled.Load(); n != 0 {
		t.Errorf("the responder handled %d requests; want none", n)
	}
}
