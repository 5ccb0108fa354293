package natsretry_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats.go"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/retry/retrytest"
	"github.com/recur-go/recur/schedule"

	"github.com/recur-go/recur/natsretry"
)

// unmarked is the mark of a request not marked.
func unmarked(ctx context.Context) context.Context { return ctx }

// onRetry returns an Observer that calls f with each Retrying event: the
// attempt that failed, before the wait.
func onRetry(f func(e retry.Event)) retry.Observer {
	return retry.ObserverFunc(func(_ context.Context, e retry.Event) {
		if e.Kind == retry.Retrying {
			f(e)
		}
	})
}

// requester makes a Requester on nc whose retries are logged by code.
func requester(t *testing.T, nc *nats.Conn, policy string, attempt time.Duration) (*natsretry.Requester, *[]string) {
	t.Helper()
	var codes []string
	r, err := natsretry.New(nc, natsretry.Config{Policy: parse.MustParse(policy), Options: retry.Options{
		Unthrottled:    true, // these tests count retries: no budget shared across them
		AttemptTimeout: attempt,
		Observer:       onRetry(func(e retry.Event) { codes = append(codes, natsretry.Code(e.Err)) }),
	}})
	if err != nil {
		t.Fatal(err)
	}
	return r, &codes
}

// TestNoRespondersUntilSubscriber: a request, not marked, with nobody
// listening is sent again on the policy until a subscriber appears
// (here, during the third wait).
func TestNoRespondersUntilSubscriber(t *testing.T) {
	nc := startServer(t)
	var codes []string
	r, err := natsretry.New(nc, natsretry.Config{Policy: parse.MustParse("spaced(20ms) & times(10)"), Options: retry.Options{
		Unthrottled: true, // these tests count retries: no budget shared across them
		Observer: onRetry(func(e retry.Event) {
			codes = append(codes, natsretry.Code(e.Err))
			if e.Attempt == 3 {
				if _, err := nc.Subscribe("svc.echo", func(m *nats.Msg) { _ = m.Respond(append([]byte("re: "), m.Data...)) }); err != nil {
					t.Error(err)
				}
				_ = nc.Flush()
			}
		}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	m, err := r.Request(ctx, "svc.echo", []byte("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("re: hi", string(m.Data)); diff != "" {
		t.Errorf("reply (-want +got)\n%s", diff)
	}
	want := []string{"no-responders", "no-responders", "no-responders"}
	if diff := cmp.Diff(want, codes); diff != "" {
		t.Errorf("retries (-want +got)\n%s", diff)
	}
}

// TestUnmarkedNoRespondersRetried: a request not marked that nobody
// receives is sent again on the policy, with an attempt timeout or
// without, and its error comes back as a *retry.Error that wraps
// nats.ErrNoResponders once the policy ends.
func TestUnmarkedNoRespondersRetried(t *testing.T) {
	nc := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	for _, attempt := range []time.Duration{0, 50 * time.Millisecond} {
		r, codes := requester(t, nc, "spaced(10ms) & times(3)", attempt)
		_, err := r.Request(ctx, "svc.nobody", nil)
		var re *retry.Error
		if !errors.As(err, &re) || re.Reason != retry.Exhausted || !errors.Is(err, nats.ErrNoResponders) {
			t.Errorf("attempt timeout %v: got %v, want a *retry.Error, the policy exhausted, wrapping nats.ErrNoResponders", attempt, err)
		}
		if diff := cmp.Diff([]string{"no-responders", "no-responders"}, *codes); diff != "" {
			t.Errorf("attempt timeout %v: retries (-want +got)\n%s", attempt, diff)
		}
	}
}

// TestTimeouts: a responder that drops the first request. Marked
// WithIdempotent the request is sent again after the attempt's timeout
// and answered; not marked, the timeout comes back unchanged (no
// *retry.Error) and the responder saw it once.
func TestTimeouts(t *testing.T) {
	nc := startServer(t)
	for _, tc := range []struct {
		name  string
		mark  func(context.Context) context.Context
		ok    bool
		seen  int64
		retry []string
	}{
		{"idempotent", natsretry.WithIdempotent, true, 2, []string{"timeout"}},
		{"unmarked", unmarked, false, 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seen atomic.Int64
			sub, err := nc.Subscribe("svc.flaky."+tc.name, func(m *nats.Msg) {
				if seen.Add(1) > 1 {
					_ = m.Respond([]byte("ok"))
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Unsubscribe()
			r, codes := requester(t, nc, "times(5)", 300*time.Millisecond)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_, err = r.Request(tc.mark(ctx), "svc.flaky."+tc.name, nil)
			if (err == nil) != tc.ok {
				t.Errorf("got %v, want success %v", err, tc.ok)
			}
			if !tc.ok && natsretry.Code(err) != natsretry.CodeTimeout {
				t.Errorf("got %v, want a timeout", err)
			}
			if re := (*retry.Error)(nil); !tc.ok && errors.As(err, &re) {
				t.Errorf("got %v, want the attempt's error unchanged", err)
			}
			time.Sleep(50 * time.Millisecond)
			if diff := cmp.Diff(tc.seen, seen.Load()); diff != "" {
				t.Errorf("requests seen (-want +got)\n%s", diff)
			}
			if diff := cmp.Diff(tc.retry, *codes); diff != "" {
				t.Errorf("retries (-want +got)\n%s", diff)
			}
		})
	}
}

// TestContextBoundsSchedule: a schedule that never stops ends with the
// request's context.
func TestContextBoundsSchedule(t *testing.T) {
	nc := startServer(t)
	r, codes := requester(t, nc, "spaced(20ms)", 0)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := r.Request(ctx, "svc.nobody", nil)
	var re *retry.Error
	if !errors.As(err, &re) || re.Reason != retry.Deadline || !errors.Is(err, nats.ErrNoResponders) {
		t.Fatalf("got %v, want a *retry.Error for the deadline wrapping ErrNoResponders", err)
	}
	if re.Attempts < 2 || re.Attempts > 11 {
		t.Errorf("%d attempts in 200ms at 20ms spacing", re.Attempts)
	}
	if len(*codes) != re.Attempts-1 {
		t.Errorf("%d retries for %d attempts", len(*codes), re.Attempts)
	}
}

// TestConfig: what New refuses, and the error that says so.
func TestConfig(t *testing.T) {
	nc := startServer(t)
	bucket, err := budget.NewTokenBucket(budget.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	budgets, err := budget.NewRegistry(budget.DefaultConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := breaker.New(breaker.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		c    natsretry.Config
		want string // in the error
	}{
		"policy":      {natsretry.Config{Policy: schedule.Times{N: 0}}, "Policy"},
		"timeout":     {natsretry.Config{Options: retry.Options{Unthrottled: true, AttemptTimeout: -1}}, "AttemptTimeout"},
		"pushback":    {natsretry.Config{Options: retry.Options{MaxPushback: -1}}, "MaxPushback"},
		"target":      {natsretry.Config{Options: retry.Options{Target: "nats://x:4222"}}, "Target"},
		"breaker":     {natsretry.Config{Options: retry.Options{Breaker: b}}, "Breaker"},
		"budget":      {natsretry.Config{Options: retry.Options{Budget: bucket}}, "Budget"},
		"unthrottled": {natsretry.Config{Budget: budgets, Options: retry.Options{Unthrottled: true}}, "Unthrottled"},
	} {
		_, err := natsretry.New(nc, tc.c)
		if err == nil {
			t.Errorf("%s: New accepted %+v", name, tc.c)
			continue
		}
		if !strings.HasPrefix(err.Error(), "natsretry: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: New: %v, want a natsretry error naming %s", name, err, tc.want)
		}
	}
	if _, err := natsretry.New(nil, natsretry.Config{}); err == nil {
		t.Error("New accepted a nil connection")
	}
}

// TestObserver: Options.Observer sees each attempt and the retry between
// them, with the server's URL as the target and Code as the label: no
// responders until a subscriber comes (Request and RequestMsg), a
// timeout retried WithIdempotent, and one not marked returns.
func TestObserver(t *testing.T) {
	nc := startServer(t)
	target := nc.ConnectedUrl()
	retried := func(label string) []retrytest.Seen {
		return []retrytest.Seen{
			{Kind: retry.Attempted, Target: target, Attempt: 1, Label: label},
			{Kind: retry.Retrying, Target: target, Attempt: 1, Label: label},
			{Kind: retry.Attempted, Target: target, Attempt: 2},
			{Kind: retry.Recovered, Target: target, Attempt: 2, Label: label},
		}
	}
	for _, tc := range []struct {
		name    string
		mark    func(context.Context) context.Context
		msg     bool // RequestMsg, not Request
		late    bool // subscribe only at the first retry, not before: no responders
		attempt time.Duration
		ok      bool
		want    []retrytest.Seen
	}{
		{name: "no-responders", mark: unmarked, late: true, ok: true, want: retried("no-responders")},
		{name: "no-responders-msg", mark: unmarked, msg: true, late: true, ok: true, want: retried("no-responders")},
		{name: "no-responders-idempotent", mark: natsretry.WithIdempotent, late: true, ok: true, want: retried("no-responders")},
		{name: "timeout-idempotent", mark: natsretry.WithIdempotent, attempt: 300 * time.Millisecond, ok: true, want: retried("timeout")},
		{name: "timeout-unmarked", mark: unmarked, attempt: 300 * time.Millisecond, want: []retrytest.Seen{
			{Kind: retry.Attempted, Target: target, Attempt: 1, Label: "timeout"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			subj := "svc.observed." + tc.name
			var seen atomic.Int64
			subscribe := func() {
				// The first request a late subscriber sees is answered;
				// an early one lets the first time out.
				sub, err := nc.Subscribe(subj, func(m *nats.Msg) {
					if seen.Add(1) > 1 || tc.late {
						_ = m.Respond(m.Data)
					}
				})
				if err != nil {
					t.Error(err)
					return
				}
				t.Cleanup(func() { _ = sub.Unsubscribe() })
				_ = nc.Flush()
			}
			var rec retrytest.Recorder
			opts := retry.Options{Unthrottled: true, Observer: &rec, AttemptTimeout: tc.attempt}
			if tc.late {
				opts.Observer = retry.Observers(&rec, onRetry(func(retry.Event) { subscribe() }))
			} else {
				subscribe()
			}
			r, err := natsretry.New(nc, natsretry.Config{Policy: parse.MustParse("spaced(10ms) & times(3)"), Options: opts})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			if tc.msg {
				_, err = r.RequestMsg(tc.mark(ctx), &nats.Msg{Subject: subj, Data: []byte("hi")})
			} else {
				_, err = r.Request(tc.mark(ctx), subj, []byte("hi"))
			}
			if (err == nil) != tc.ok {
				t.Fatalf("got %v, want success %v", err, tc.ok)
			}
			if diff := cmp.Diff(tc.want, rec.Seen()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}
