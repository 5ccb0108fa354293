package natsretry_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats.go"
	"github.com/recur-go/recur/natsretry/internal/obstest"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"

	"github.com/recur-go/recur/natsretry"
)

// requester makes a Requester on nc whose retries are logged by code.
func requester(t *testing.T, nc *nats.Conn, policy string, attempt time.Duration) (*natsretry.Requester, *[]string) {
	t.Helper()
	var codes []string
	r, err := natsretry.New(nc, natsretry.Config{Policy: policy, Retry: natsretry.RetryOptions{
		Unthrottled:    true, // these tests count retries: no budget shared across them
		AttemptTimeout: attempt,
		OnRetry:        func(_ int, err error, _ time.Duration, _ string) { codes = append(codes, natsretry.Code(err)) },
	}})
	if err != nil {
		t.Fatal(err)
	}
	return r, &codes
}

// TestNoRespondersUntilSubscriber: a request marked WithRetry with nobody
// listening is sent again on the schedule until a subscriber appears
// (here, during the third wait).
func TestNoRespondersUntilSubscriber(t *testing.T) {
	nc := startServer(t)
	var codes []string
	r, err := natsretry.New(nc, natsretry.Config{Policy: "spaced(20ms) & times(10)", Retry: natsretry.RetryOptions{
		Unthrottled: true, // these tests count retries: no budget shared across them
		OnRetry: func(n int, err error, _ time.Duration, _ string) {
			codes = append(codes, natsretry.Code(err))
			if n == 3 {
				if _, err := nc.Subscribe("svc.echo", func(m *nats.Msg) { _ = m.Respond(append([]byte("re: "), m.Data...)) }); err != nil {
					t.Error(err)
				}
				_ = nc.Flush()
			}
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	m, err := r.Request(natsretry.WithRetry(ctx), "svc.echo", []byte("hi"))
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

// TestUnmarkedNeverRetried: without a mark a request is sent once, and
// its error comes back unwrapped.
func TestUnmarkedNeverRetried(t *testing.T) {
	nc := startServer(t)
	r, codes := requester(t, nc, "spaced(10ms) & times(50)", 0)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err := r.Request(ctx, "svc.nobody", nil)
	if err != nats.ErrNoResponders {
		t.Errorf("got %v, want nats.ErrNoResponders itself", err)
	}
	if len(*codes) != 0 {
		t.Errorf("unmarked request retried: %v", *codes)
	}
	// With an attempt timeout too.
	r2, codes2 := requester(t, nc, "spaced(10ms) & times(50)", 50*time.Millisecond)
	if _, err := r2.Request(ctx, "svc.nobody", nil); err != nats.ErrNoResponders {
		t.Errorf("got %v, want nats.ErrNoResponders itself", err)
	}
	if len(*codes2) != 0 {
		t.Errorf("unmarked request retried: %v", *codes2)
	}
}

// TestTimeouts: a responder that drops the first request. Marked WithSafe
// the request is sent again after the attempt's timeout and answered;
// marked WithRetry or not at all, the timeout comes back and the
// responder saw it once.
func TestTimeouts(t *testing.T) {
	nc := startServer(t)
	for _, tc := range []struct {
		name  string
		mark  func(context.Context) context.Context
		ok    bool
		seen  int64
		retry []string
	}{
		{"safe", natsretry.WithSafe, true, 2, []string{"timeout"}},
		{"retry", natsretry.WithRetry, false, 1, nil},
		{"unmarked", func(ctx context.Context) context.Context { return ctx }, false, 1, nil},
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
	_, err := r.Request(natsretry.WithRetry(ctx), "svc.nobody", nil)
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

// TestConfig: what New refuses.
func TestConfig(t *testing.T) {
	nc := startServer(t)
	for name, c := range map[string]natsretry.Config{
		"both":     {Policy: "times(3)", Schedule: schedule.Times{N: 3}},
		"policy":   {Policy: "times("},
		"schedule": {Schedule: schedule.Times{N: 0}},
		"timeout":  {Retry: natsretry.RetryOptions{Unthrottled: true, AttemptTimeout: -1}},
	} {
		if _, err := natsretry.New(nc, c); err == nil {
			t.Errorf("%s: New accepted %+v", name, c)
		}
	}
	if _, err := natsretry.New(nil, natsretry.Config{}); err == nil {
		t.Error("New accepted a nil connection")
	}
}

// TestObserver: RetryOptions.Observer sees each attempt and the retry
// between them, with the server's URL as the target and Code as the
// label: no responders until a subscriber comes (Request and
// RequestMsg), a timeout retried WithSafe, and one WithRetry returns.
func TestObserver(t *testing.T) {
	nc := startServer(t)
	target := nc.ConnectedUrl()
	retried := func(label string) []obstest.Seen {
		return []obstest.Seen{
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
		want    []obstest.Seen
	}{
		{name: "no-responders", mark: natsretry.WithRetry, late: true, ok: true, want: retried("no-responders")},
		{name: "no-responders-msg", mark: natsretry.WithRetry, msg: true, late: true, ok: true, want: retried("no-responders")},
		{name: "timeout-safe", mark: natsretry.WithSafe, attempt: 300 * time.Millisecond, ok: true, want: retried("timeout")},
		{name: "timeout-retry", mark: natsretry.WithRetry, attempt: 300 * time.Millisecond, want: []obstest.Seen{
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
			var rec obstest.Recorder
			opts := natsretry.RetryOptions{Unthrottled: true, Observer: &rec, AttemptTimeout: tc.attempt}
			if tc.late {
				opts.OnRetry = func(int, error, time.Duration, string) { subscribe() }
			} else {
				subscribe()
			}
			r, err := natsretry.New(nc, natsretry.Config{Policy: "spaced(10ms) & times(3)", Retry: opts})
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
