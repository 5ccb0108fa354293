package grpcretry_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/grpcretry"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/retry/retrytest"
	"github.com/recur-go/recur/schedule"
)

// steady is a schedule without jitter, so that tests can assert the waits.
func steady(attempts int) schedule.Schedule {
	return schedule.Intersect{A: schedule.Exponential{Base: 10 * time.Millisecond, FactorPct: 200, Cap: time.Second}, B: schedule.Times{N: attempts}}
}

// intercept returns the interceptor of c or fails the test.
func intercept(t *testing.T, c grpcretry.Config) grpc.UnaryClientInterceptor {
	t.Helper()
	ic, err := grpcretry.UnaryClientInterceptor(c)
	if err != nil {
		t.Fatal(err)
	}
	return ic
}

// virtual returns runner options on a virtual clock, so retries wait no
// real time, and the clock.
func virtual() (retry.Options, *clockcap.VirtualClock) {
	clock := clockcap.Virtual(time.Now())
	return retry.Options{Caps: retry.Caps{Clock: clock, Random: randcap.Seeded(1)}}, clock
}

// retriedCodes returns an Observer that appends the status code of each
// attempt that is retried to *codes.
func retriedCodes(codes *[]codes.Code) retry.Observer {
	return retry.ObserverFunc(func(_ context.Context, e retry.Event) {
		if e.Kind == retry.Retrying {
			*codes = append(*codes, status.Code(e.Err))
		}
	})
}

func TestRetriesUntilSuccess(t *testing.T) {
	srv := start(t, failFirst(2, codes.Unavailable))
	opts, clock := virtual()
	client := dial(t, srv.addr, intercept(t, grpcretry.Config{Policy: steady(5), Options: opts}))

	resp, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
	if err != nil {
		t.Fatalf("UnaryCall: %v", err)
	}
	if resp.GetUsername() != "ok" {
		t.Errorf("response %v; want the third attempt's", resp)
	}
	if diff := cmp.Diff([]string{"", "1", "2"}, srv.previous()); diff != "" {
		t.Errorf("grpc-previous-rpc-attempts as the server saw them (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]time.Duration{10 * time.Millisecond, 20 * time.Millisecond}, clock.Sleeps()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

func TestGivesUpWhenTheScheduleStops(t *testing.T) {
	srv := start(t, always(codes.Unavailable))
	opts, _ := virtual()
	client := dial(t, srv.addr, intercept(t, grpcretry.Config{Policy: parse.MustParse("exponential(10ms, 200%, 1s) & times(3)"), Options: opts}))

	_, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
	re, ok := errors.AsType[*retry.Error](err)
	if !ok {
		t.Fatalf("error %v (%T); want a *retry.Error", err, err)
	}
	if re.Attempts != 3 || re.Reason != retry.Exhausted {
		t.Errorf("gave up after %d attempts (%v); want 3 (schedule exhausted)", re.Attempts, re.Reason)
	}
	st := status.Convert(err)
	if st.Code() != codes.Unavailable {
		t.Errorf("status code %v; want Unavailable, the last attempt's", st.Code())
	}
	if want := "retry: gave up after 3 attempts (schedule exhausted): rpc error: code = Unavailable desc = attempt 3 fails"; err.Error() != want {
		t.Errorf("error %q; want %q", err, want)
	}
	if diff := cmp.Diff([]string{"", "1", "2"}, srv.previous()); diff != "" {
		t.Errorf("grpc-previous-rpc-attempts (-want +got):\n%s", diff)
	}
}

// TestCodes: by default only UNAVAILABLE is retried; Codes replaces the
// list. A code that is not retried comes back as the server's status
// error itself, after one attempt.
func TestCodes(t *testing.T) {
	tests := []struct {
		name     string
		codes    []codes.Code
		fail     codes.Code
		attempts int
	}{
		{"default retries unavailable", nil, codes.Unavailable, 3},
		{"default returns invalid argument", nil, codes.InvalidArgument, 1},
		{"default returns resource exhausted", nil, codes.ResourceExhausted, 1},
		{"default returns deadline exceeded from the server", nil, codes.DeadlineExceeded, 1},
		{"default returns internal", nil, codes.Internal, 1},
		{"listed resource exhausted", []codes.Code{codes.ResourceExhausted}, codes.ResourceExhausted, 3},
		{"listed aborted, not unavailable", []codes.Code{codes.Aborted}, codes.Unavailable, 1},
		{"empty list retries nothing", []codes.Code{}, codes.Unavailable, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := start(t, always(tt.fail))
			opts, _ := virtual()
			opts.Unthrottled = true
			client := dial(t, srv.addr, intercept(t, grpcretry.Config{Policy: steady(3), Codes: tt.codes, Options: opts}))
			_, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
			if got := status.Code(err); got != tt.fail {
				t.Errorf("status code %v; want %v", got, tt.fail)
			}
			if got := srv.count(); got != tt.attempts {
				t.Errorf("server saw %d attempts; want %d", got, tt.attempts)
			}
			if _, isRetryErr := errors.AsType[*retry.Error](err); isRetryErr != (tt.attempts > 1) {
				t.Errorf("error %v (%T): a *retry.Error exactly when retried", err, err)
			}
			if tt.attempts == 1 {
				if _, ok := status.FromError(err); !ok || err.Error() != "rpc error: code = "+tt.fail.String()+" desc = attempt 1 fails" {
					t.Errorf("error %q; want the server's status error unchanged", err)
				}
			}
		})
	}
}

func TestPushback(t *testing.T) {
	tests := []struct {
		name        string
		trailer     []string
		maxPushback time.Duration
		attempts    int
		reason      retry.Reason
		waits       []time.Duration
	}{
		{"longer than the backoff", []string{"250"}, 0, 3, retry.Exhausted, []time.Duration{250 * time.Millisecond, 250 * time.Millisecond}},
		{"shorter than the backoff", []string{"0"}, 0, 3, retry.Exhausted, []time.Duration{10 * time.Millisecond, 20 * time.Millisecond}},
		{"capped by MaxPushback", []string{"250"}, 100 * time.Millisecond, 3, retry.Exhausted, []time.Duration{100 * time.Millisecond, 100 * time.Millisecond}},
		{"capped by DefaultMaxPushback", []string{"9000000000000"}, 0, 3, retry.Exhausted, []time.Duration{grpcretry.DefaultMaxPushback, grpcretry.DefaultMaxPushback}},
		{"past int64 stops", []string{"99999999999999999999"}, 0, 1, retry.Refused, nil},
		{"MaxPushback above the default", []string{"9000000000000"}, time.Hour, 3, retry.Exhausted, []time.Duration{time.Hour, time.Hour}},
		{"negative stops", []string{"-1"}, 0, 1, retry.Refused, nil},
		{"garbage stops", []string{"soon"}, 0, 1, retry.Refused, nil},
		{"a fraction stops", []string{"1.5"}, 0, 1, retry.Refused, nil},
		{"empty stops", []string{""}, 0, 1, retry.Refused, nil},
		{"two values stop", []string{"10", "20"}, 0, 1, retry.Refused, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := start(t, func(ctx context.Context, k int) error {
				grpc.SetTrailer(ctx, metadata.MD{grpcretry.PushbackHeader: tt.trailer})
				return status.Errorf(codes.Unavailable, "attempt %d fails", k)
			})
			opts, clock := virtual()
			opts.MaxPushback = tt.maxPushback
			client := dial(t, srv.addr, intercept(t, grpcretry.Config{Policy: steady(3), Options: opts}))
			_, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
			re, ok := errors.AsType[*retry.Error](err)
			if !ok {
				t.Fatalf("error %v (%T); want a *retry.Error", err, err)
			}
			if re.Attempts != tt.attempts || re.Reason != tt.reason {
				t.Errorf("gave up after %d attempts (%v); want %d (%v)", re.Attempts, re.Reason, tt.attempts, tt.reason)
			}
			if got := srv.count(); got != tt.attempts {
				t.Errorf("server saw %d attempts; want %d", got, tt.attempts)
			}
			if diff := cmp.Diff(tt.waits, clock.Sleeps()); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			if status.Code(err) != codes.Unavailable {
				t.Errorf("status code %v; want Unavailable", status.Code(err))
			}
		})
	}
}

// TestHangPastDeadline: a server that never answers holds the call until
// its deadline, and no retry follows.
func TestHangPastDeadline(t *testing.T) {
	srv := start(t, hang)
	opts, _ := virtual()
	client := dial(t, srv.addr, intercept(t, grpcretry.Config{Policy: steady(5), Codes: []codes.Code{codes.Unavailable, codes.DeadlineExceeded}, Options: opts}))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := client.UnaryCall(ctx, &testpb.SimpleRequest{})
	if status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("error %v; want DeadlineExceeded", err)
	}
	if _, isRetryErr := errors.AsType[*retry.Error](err); isRetryErr {
		t.Errorf("error %v is a *retry.Error; want the attempt's own status", err)
	}
	if got := srv.count(); got != 1 {
		t.Errorf("server saw %d attempts; want 1", got)
	}
}

// TestAttemptTimeout: an attempt that hangs is cut short by the attempt
// timeout and retried, although DEADLINE_EXCEEDED is not a retried code.
func TestAttemptTimeout(t *testing.T) {
	srv := start(t, func(ctx context.Context, k int) error {
		if k <= 2 {
			return hang(ctx, k)
		}
		return nil
	})
	opts, _ := virtual()
	opts.AttemptTimeout = 50 * time.Millisecond
	var retried []codes.Code
	opts.Observer = retriedCodes(&retried)
	client := dial(t, srv.addr, intercept(t, grpcretry.Config{Policy: steady(5), Options: opts}))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := client.UnaryCall(ctx, &testpb.SimpleRequest{}); err != nil {
		t.Fatalf("UnaryCall: %v", err)
	}
	if diff := cmp.Diff([]codes.Code{codes.DeadlineExceeded, codes.DeadlineExceeded}, retried); diff != "" {
		t.Errorf("codes of the retried attempts (-want +got):\n%s", diff)
	}
	calls := srv.seen()
	if len(calls) != 3 {
		t.Fatalf("server saw %d attempts; want 3", len(calls))
	}
	callDeadline, _ := ctx.Deadline()
	for i, c := range calls {
		// Each attempt's grpc-timeout is the attempt timeout, far inside
		// the call's minute.
		if !c.HasDeadline || !c.Deadline.Before(callDeadline.Add(-30*time.Second)) {
			t.Errorf("attempt %d: server deadline %v (set: %v); want one from the 50ms attempt timeout, before %v", i+1, c.Deadline, c.HasDeadline, callDeadline.Add(-30*time.Second))
		}
	}
}

// TestDeadlineBoundsAllAttempts: a retry whose wait would end past the
// call's deadline is not made; the runner does not sleep into it.
func TestDeadlineBoundsAllAttempts(t *testing.T) {
	srv := start(t, always(codes.Unavailable))
	opts, clock := virtual()
	client := dial(t, srv.addr, intercept(t, grpcretry.Config{Policy: parse.MustParse("exponential(400ms, 200%, 10s) & times(10)"), Options: opts}))
	// The deadline is on the virtual timeline: 1 s of waits from now.
	ctx, cancel := context.WithDeadline(context.Background(), clock.Now().Add(time.Second))
	defer cancel()
	_, err := client.UnaryCall(ctx, &testpb.SimpleRequest{})
	re, ok := errors.AsType[*retry.Error](err)
	if !ok {
		t.Fatalf("error %v (%T); want a *retry.Error", err, err)
	}
	if re.Attempts != 2 || re.Reason != retry.Deadline {
		t.Errorf("gave up after %d attempts (%v); want 2 (deadline exceeded)", re.Attempts, re.Reason)
	}
	if !errors.Is(err, context.DeadlineExceeded) || status.Code(err) != codes.Unavailable {
		t.Errorf("error %v: want errors.Is DeadlineExceeded and the last attempt's status Unavailable", err)
	}
	if diff := cmp.Diff([]time.Duration{400 * time.Millisecond}, clock.Sleeps()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	if got := srv.count(); got != 2 {
		t.Errorf("server saw %d attempts; want 2", got)
	}
}

// TestRemainingDeadline: every attempt's context carries the call's own
// deadline, which grpc-go sends as grpc-timeout when the attempt starts:
// the server sees the time that is left, not a fresh timeout.
func TestRemainingDeadline(t *testing.T) {
	srv := start(t, failFirst(2, codes.Unavailable))
	opts, _ := virtual()
	var deadlines []time.Time
	record := func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, o ...grpc.CallOption) error {
		d, ok := ctx.Deadline()
		if !ok {
			t.Error("an attempt's context has no deadline")
		}
		deadlines = append(deadlines, d)
		return invoker(ctx, method, req, reply, cc, o...)
	}
	client := dial(t, srv.addr, intercept(t, grpcretry.Config{Policy: steady(5), Options: opts}), record)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := client.UnaryCall(ctx, &testpb.SimpleRequest{}); err != nil {
		t.Fatal(err)
	}
	want, _ := ctx.Deadline()
	if diff := cmp.Diff([]time.Time{want, want, want}, deadlines); diff != "" {
		t.Errorf("attempt deadlines (-want +got):\n%s", diff)
	}
	for i, c := range srv.seen() {
		// grpc-timeout rounds up, and the server adds it to its own later
		// clock reading: never earlier than the caller's deadline.
		if !c.HasDeadline || c.Deadline.Before(want) {
			t.Errorf("attempt %d: server deadline %v (set: %v); want one from the call's %v", i+1, c.Deadline, c.HasDeadline, want)
		}
	}
}

// TestConnectionClosed: a server that drops the connection mid-call gives
// UNAVAILABLE; the retry goes out on a new connection.
func TestConnectionClosed(t *testing.T) {
	var srv *server
	srv = start(t, func(ctx context.Context, k int) error {
		if k <= 2 {
			srv.closeConn(ctx)
			return hang(ctx, k)
		}
		return nil
	})
	opts, _ := virtual()
	var retried []codes.Code
	opts.Observer = retriedCodes(&retried)
	client := dial(t, srv.addr, intercept(t, grpcretry.Config{Policy: steady(5), Options: opts}))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := client.UnaryCall(ctx, &testpb.SimpleRequest{}); err != nil {
		t.Fatalf("UnaryCall: %v", err)
	}
	if diff := cmp.Diff([]codes.Code{codes.Unavailable, codes.Unavailable}, retried); diff != "" {
		t.Errorf("codes of the retried attempts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"", "1", "2"}, srv.previous()); diff != "" {
		t.Errorf("grpc-previous-rpc-attempts (-want +got):\n%s", diff)
	}
}

// TestPreviousAttemptsReplaced: a value the caller already put in the
// outgoing metadata (a proxy forwarding its own) is replaced on retries,
// not sent twice.
func TestPreviousAttemptsReplaced(t *testing.T) {
	srv := start(t, failFirst(1, codes.Unavailable))
	opts, _ := virtual()
	client := dial(t, srv.addr, intercept(t, grpcretry.Config{Policy: steady(5), Options: opts}))
	var values [][]string
	ctx := metadata.AppendToOutgoingContext(context.Background(), grpcretry.PreviousAttemptsHeader, "7", "x-other", "kept")
	srv.behave = func(ctx context.Context, k int) error {
		md, _ := metadata.FromIncomingContext(ctx)
		values = append(values, append(md.Get(grpcretry.PreviousAttemptsHeader), md.Get("x-other")...))
		return failFirst(1, codes.Unavailable)(ctx, k)
	}
	if _, err := client.UnaryCall(ctx, &testpb.SimpleRequest{}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]string{{"7", "kept"}, {"1", "kept"}}, values); diff != "" {
		t.Errorf("metadata per attempt (-want +got):\n%s", diff)
	}
}

// TestStreamsPassThrough: the interceptor is unary only; a failing
// streaming call is not retried.
func TestStreamsPassThrough(t *testing.T) {
	srv := start(t, always(codes.Unavailable))
	opts, _ := virtual()
	client := dial(t, srv.addr, intercept(t, grpcretry.Config{Policy: steady(5), Options: opts}))
	stream, err := client.StreamingOutputCall(context.Background(), &testpb.StreamingOutputCallRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); status.Code(err) != codes.Unavailable {
		t.Errorf("Recv: %v; want Unavailable", err)
	}
	if got := srv.count(); got != 1 {
		t.Errorf("server saw %d attempts; want 1", got)
	}
}

// TestLogObserver: retry.LogObserver's records carry the attempt's
// reason label and the ClientConn's target.
func TestLogObserver(t *testing.T) {
	srv := start(t, failFirst(1, codes.Unavailable))
	opts, _ := virtual()
	var buf strings.Builder
	opts.Observer = retry.LogObserver(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	})))
	client := dial(t, srv.addr, intercept(t, grpcretry.Config{Policy: steady(3), Options: opts}))
	if _, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{}); err != nil {
		t.Fatal(err)
	}
	want := "level=DEBUG msg=retry attempt=1 delay=10ms label=unavailable target=" + srv.addr +
		" err=\"rpc error: code = Unavailable desc = attempt 1 fails\"\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
}

// callTag is a context key of TestObserverContext.
type callTag struct{}

// TestObserverContext: every event reaches the Observer with the call's
// context, retried or hedged, so a value the caller put on it (such as
// the method, by an interceptor chained before this one) tags the event.
func TestObserverContext(t *testing.T) {
	for _, hedge := range []bool{false, true} {
		t.Run(fmt.Sprintf("hedge=%v", hedge), func(t *testing.T) {
			srv := start(t, failFirst(1, codes.Unavailable))
			opts, _ := virtual()
			opts.Unthrottled = true
			var (
				mu   sync.Mutex
				tags []any
			)
			opts.Observer = retry.ObserverFunc(func(ctx context.Context, _ retry.Event) {
				mu.Lock()
				defer mu.Unlock()
				tags = append(tags, ctx.Value(callTag{}))
			})
			client := dial(t, srv.addr, intercept(t, grpcretry.Config{Policy: steady(3), Hedge: hedge, Options: opts}))
			ctx := context.WithValue(context.Background(), callTag{}, "/grpc.testing.TestService/UnaryCall")
			if _, err := client.UnaryCall(ctx, &testpb.SimpleRequest{}); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(tags) == 0 {
				t.Fatal("the Observer saw no event")
			}
			for i, tag := range tags {
				if tag != "/grpc.testing.TestService/UnaryCall" {
					t.Errorf("event %d: the context's tag is %v; want the caller's", i, tag)
				}
			}
		})
	}
}

// TestObserver: Config.Options.Observer sees each attempt and the retry between
// them, with the ClientConn's target and the attempt's reason label.
func TestObserver(t *testing.T) {
	for _, tc := range []struct {
		name    string
		behave  func(context.Context, int) error
		codes   []codes.Code
		timeout time.Duration // the attempt timeout
		label   string        // the failed first attempt's
	}{
		{name: "unavailable", behave: failFirst(1, codes.Unavailable), label: "unavailable"},
		{name: "resource-exhausted", behave: failFirst(1, codes.ResourceExhausted), codes: []codes.Code{codes.ResourceExhausted}, label: "resource-exhausted"},
		{name: "attempt-timeout", behave: func(ctx context.Context, k int) error {
			if k == 1 {
				return hang(ctx, k)
			}
			return nil
		}, timeout: 50 * time.Millisecond, label: "attempt-timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := start(t, tc.behave)
			opts, _ := virtual()
			opts.AttemptTimeout = tc.timeout
			var rec retrytest.Recorder
			opts.Observer = &rec
			client := dial(t, srv.addr, intercept(t, grpcretry.Config{Policy: steady(3), Codes: tc.codes, Options: opts}))
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if _, err := client.UnaryCall(ctx, &testpb.SimpleRequest{}); err != nil {
				t.Fatal(err)
			}
			want := []retrytest.Seen{
				{Kind: retry.Attempted, Target: srv.addr, Attempt: 1, Label: tc.label},
				{Kind: retry.Retrying, Target: srv.addr, Attempt: 1, Label: tc.label},
				{Kind: retry.Attempted, Target: srv.addr, Attempt: 2},
				{Kind: retry.Recovered, Target: srv.addr, Attempt: 2, Label: tc.label},
			}
			if diff := cmp.Diff(want, rec.Seen()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestObserverGivesUp: the labels of a call that fails: the code of an
// attempt that is not retried, the last attempt's on GaveUp and in
// retry.Error.Label, and "canceled" for an attempt the caller's deadline
// ended.
func TestObserverGivesUp(t *testing.T) {
	for _, tc := range []struct {
		name     string
		behave   func(context.Context, int) error
		deadline time.Duration // the call's, real time; none when zero
		want     []retrytest.Seen
	}{
		{name: "not-retried", behave: always(codes.PermissionDenied), want: []retrytest.Seen{
			{Kind: retry.Attempted, Attempt: 1, Label: "permission-denied"},
		}},
		{name: "exhausted", behave: always(codes.Unavailable), want: []retrytest.Seen{
			{Kind: retry.Attempted, Attempt: 1, Label: "unavailable"},
			{Kind: retry.Retrying, Attempt: 1, Label: "unavailable"},
			{Kind: retry.Attempted, Attempt: 2, Label: "unavailable"},
			{Kind: retry.GaveUp, Attempt: 2, Label: "unavailable"},
		}},
		{name: "canceled", behave: hang, deadline: 50 * time.Millisecond, want: []retrytest.Seen{
			{Kind: retry.Attempted, Attempt: 1, Label: "canceled"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := start(t, tc.behave)
			opts, _ := virtual()
			var rec retrytest.Recorder
			opts.Observer = &rec
			client := dial(t, srv.addr, intercept(t, grpcretry.Config{Policy: steady(2), Options: opts}))
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			if tc.deadline != 0 {
				ctx, cancel = context.WithTimeout(context.Background(), tc.deadline)
			}
			defer cancel()
			_, err := client.UnaryCall(ctx, &testpb.SimpleRequest{})
			if err == nil {
				t.Fatal("the call succeeded; want an error")
			}
			// Only a call that was retried returns a *retry.Error.
			if re, ok := errors.AsType[*retry.Error](err); ok && re.Label != "unavailable" {
				t.Errorf("retry.Error.Label %q; want %q", re.Label, "unavailable")
			} else if !ok && tc.name == "exhausted" {
				t.Errorf("error %v (%T); want a *retry.Error", err, err)
			}
			got := rec.Seen()
			for i := range got {
				got[i].Target = "" // TestObserver checks it
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}
