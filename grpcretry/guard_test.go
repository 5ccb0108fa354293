package grpcretry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/status"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/grpcretry"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/retry"
)

// breakers returns a registry whose breakers open after two failures in
// a row and stay open a minute on clock.
func breakers(t *testing.T, clock clockcap.Clock) *breaker.Registry {
	t.Helper()
	r, err := breaker.NewRegistry(breaker.Config{ConsecutiveFailures: 2, FailureRate: -1, Clock: clock}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestBreakerOpen: once the target's breaker opens, calls fail at once
// with UNAVAILABLE "circuit open" and the server sees nothing.
func TestBreakerOpen(t *testing.T) {
	srv := start(t, always(codes.Unavailable))
	opts, clock := virtual()
	reg := breakers(t, clock)
	client := dial(t, srv.addr, intercept(t, grpcretry.Config{Policy: steady(2), Options: opts, Breaker: reg}))

	// Two failed attempts open the breaker.
	if _, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{}); status.Code(err) != codes.Unavailable {
		t.Fatalf("first call: %v", err)
	}
	if got := reg.Get(srv.addr).State(); got != breaker.Open {
		t.Fatalf("breaker of %s is %v; want open", srv.addr, got)
	}
	for range 3 {
		_, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
		st, ok := status.FromError(err)
		if !ok || st.Code() != codes.Unavailable || st.Message() != "circuit open" {
			t.Errorf("error %v; want status UNAVAILABLE \"circuit open\"", err)
		}
		if !errors.Is(err, breaker.ErrOpen) {
			t.Errorf("error %v: errors.Is(err, breaker.ErrOpen) is false", err)
		}
		if _, isRetryErr := errors.AsType[*retry.Error](err); isRetryErr {
			t.Errorf("error %v is a *retry.Error; no attempt was made", err)
		}
	}
	if got := srv.count(); got != 2 {
		t.Errorf("server saw %d attempts; want the 2 before the breaker opened", got)
	}
	if got := reg.Get(srv.addr).Stats().Rejected; got != 3 {
		t.Errorf("breaker rejected %d calls; want 3", got)
	}
}

// TestBreakerOpensMidCall: the breaker opens between two attempts of one
// call; the call ends without the third attempt.
func TestBreakerOpensMidCall(t *testing.T) {
	srv := start(t, always(codes.Unavailable))
	opts, clock := virtual()
	client := dial(t, srv.addr, intercept(t, grpcretry.Config{Policy: steady(5), Options: opts, Breaker: breakers(t, clock)}))
	_, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
	re, ok := errors.AsType[*retry.Error](err)
	if !ok {
		t.Fatalf("error %v (%T); want a *retry.Error", err, err)
	}
	if re.Attempts != 2 || re.Reason != retry.Open || !errors.Is(err, breaker.ErrOpen) {
		t.Errorf("gave up after %d attempts (%v): %v; want 2 (circuit open)", re.Attempts, re.Reason, err)
	}
	if status.Code(err) != codes.Unavailable {
		t.Errorf("status code %v; want the last attempt's Unavailable", status.Code(err))
	}
	if got := srv.count(); got != 2 {
		t.Errorf("server saw %d attempts; want 2", got)
	}
}

// TestBreakerVerdicts: what the breaker counts, as docs/grpc.md has it: UNAVAILABLE
// and attempt timeouts are failures of the target; application codes,
// retried or not, are not; the caller's own deadline is not.
func TestBreakerVerdicts(t *testing.T) {
	tests := []struct {
		name                string
		behave              func(context.Context, int) error
		codes               []codes.Code
		attemptTimeout      time.Duration
		callTimeout         time.Duration
		successes, failures uint64
	}{
		{"unavailable then success", failFirst(1, codes.Unavailable), nil, 0, 0, 1, 1},
		{"unavailable not retried", always(codes.Unavailable), []codes.Code{codes.Aborted}, 0, 0, 0, 1},
		{"application code", always(codes.InvalidArgument), nil, 0, 0, 0, 0},
		{"retried application code", failFirst(1, codes.ResourceExhausted), []codes.Code{codes.ResourceExhausted}, 0, 0, 1, 0},
		{"attempt timeout", func(ctx context.Context, k int) error {
			if k == 1 {
				return hang(ctx, k)
			}
			return nil
		}, nil, 50 * time.Millisecond, 0, 1, 1},
		{"caller's deadline", hang, nil, 0, 100 * time.Millisecond, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := start(t, tt.behave)
			opts, clock := virtual()
			opts.AttemptTimeout = tt.attemptTimeout
			reg, err := breaker.NewRegistry(breaker.Config{Clock: clock}, 0)
			if err != nil {
				t.Fatal(err)
			}
			client := dial(t, srv.addr, intercept(t, grpcretry.Config{Policy: steady(2), Codes: tt.codes, Options: opts, Breaker: reg}))
			ctx := context.Background()
			if tt.callTimeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.callTimeout)
				defer cancel()
			}
			client.UnaryCall(ctx, &testpb.SimpleRequest{})
			st := reg.Get(srv.addr).Stats()
			if st.Successes != tt.successes || st.Failures != tt.failures {
				t.Errorf("breaker counted %d successes, %d failures; want %d, %d", st.Successes, st.Failures, tt.successes, tt.failures)
			}
		})
	}
}

// TestBudgetPerTarget: each target has its own A6 token bucket; draining
// one leaves the other's retries alone.
func TestBudgetPerTarget(t *testing.T) {
	a, b := start(t, always(codes.Unavailable)), start(t, always(codes.Unavailable))
	budgets, err := budget.NewRegistry(budget.TokenBucketConfig{MaxTokens: 4}, 0)
	if err != nil {
		t.Fatal(err)
	}
	opts, _ := virtual()
	ic := intercept(t, grpcretry.Config{Policy: steady(10), Options: opts, Budget: budgets})
	clientA, clientB := dial(t, a.addr, ic), dial(t, b.addr, ic)

	// 4 tokens: a retry needs more than 2, each failure takes 1.
	wantAttempts := func(client testpb.TestServiceClient, attempts int) {
		t.Helper()
		_, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
		re, ok := errors.AsType[*retry.Error](err)
		if attempts == 1 {
			if ok {
				t.Errorf("error %v; want the attempt's own status: no retry was considered worth a token", err)
			}
			return
		}
		if !ok || re.Attempts != attempts || re.Reason != retry.Budget || !errors.Is(err, budget.ErrThrottled) {
			t.Errorf("error %v; want %d attempts ending on the retry budget", err, attempts)
		}
	}
	wantAttempts(clientA, 2) // 4 → 3 → 2 tokens
	if diff := cmp.Diff([]string{"", "1"}, a.previous()); diff != "" {
		t.Errorf("target A (-want +got):\n%s", diff)
	}
	wantAttempts(clientB, 2) // B's bucket is full
	if got := b.count(); got != 2 {
		t.Errorf("target B saw %d attempts; want 2", got)
	}
	if got := budgets.Get(a.addr).Stats().Tokens; got != 2 {
		t.Errorf("target A has %v tokens; want 2", got)
	}
	if got := budgets.Len(); got != 2 {
		t.Errorf("budget registry holds %d targets; want 2", got)
	}
}

// TestDefaultBudget: with no Budget, A6's default token bucket stops a
// failing target's retries after 5 failures; Unthrottled lifts it.
func TestDefaultBudget(t *testing.T) {
	for _, unthrottled := range []bool{false, true} {
		srv := start(t, always(codes.Unavailable))
		opts, _ := virtual()
		opts.Unthrottled = unthrottled
		client := dial(t, srv.addr, intercept(t, grpcretry.Config{Policy: steady(8), Options: opts}))
		_, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
		want := retry.Error{Attempts: 5, Reason: retry.Budget}
		if unthrottled {
			want = retry.Error{Attempts: 8, Reason: retry.Exhausted}
		}
		re, ok := errors.AsType[*retry.Error](err)
		if !ok || re.Attempts != want.Attempts || re.Reason != want.Reason {
			t.Errorf("Unthrottled %v: error %v; want %d attempts (%v)", unthrottled, err, want.Attempts, want.Reason)
		}
		if got := srv.count(); got != want.Attempts {
			t.Errorf("Unthrottled %v: server saw %d attempts; want %d", unthrottled, got, want.Attempts)
		}
	}
}

// TestBudgetRefusesCall: a budget that sheds calls (Adaptive) refuses one
// locally with status UNAVAILABLE, without touching the network.
func TestBudgetRefusesCall(t *testing.T) {
	srv := start(t, always(codes.Unavailable))
	opts, clock := virtual()
	budgets, err := budget.NewRegistry(budget.AdaptiveConfig{Clock: clock, Random: randcap.Seeded(1)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	client := dial(t, srv.addr, intercept(t, grpcretry.Config{Policy: steady(1), Options: opts, Budget: budgets}))
	// Failures teach the adaptive budget that the target rejects calls.
	refused := 0
	for range 50 {
		_, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
		if errors.Is(err, budget.ErrThrottled) {
			refused++
			if st, _ := status.FromError(err); st.Code() != codes.Unavailable || st.Message() != "call throttled locally" {
				t.Errorf("refused call: %v; want status UNAVAILABLE \"call throttled locally\"", err)
			}
		}
	}
	if refused == 0 {
		t.Fatal("the adaptive budget refused no call")
	}
	if got := srv.count(); got != 50-refused {
		t.Errorf("server saw %d attempts; want the %d calls not refused", got, 50-refused)
	}
}
