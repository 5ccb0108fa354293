package grpcretry_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/status"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/grpcconfig"
	"github.com/recur-go/recur/grpcretry"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

const serviceConfig = `{
  "methodConfig": [
    {
      "name": [{"service": "grpc.testing.TestService", "method": "UnaryCall"}],
      "retryPolicy": {
        "maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s",
        "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]
      }
    },
    {"name": [{"service": "grpc.testing.TestService", "method": "EmptyCall"}]},
    {
      "name": [{}],
      "retryPolicy": {
        "maxAttempts": 9, "initialBackoff": "0.2s", "maxBackoff": "0.3s",
        "backoffMultiplier": 1.5, "retryableStatusCodes": ["ABORTED"]
      }
    }
  ],
  "retryThrottling": {"maxTokens": 6, "tokenRatio": 0.5}
}`

// TestServiceConfig: each method follows its own method config, as gRPC
// would pick it, with A6's full-jitter waits.
func TestServiceConfig(t *testing.T) {
	sc, err := grpcconfig.Parse([]byte(serviceConfig))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		call     func(testpb.TestServiceClient) error
		fail     codes.Code
		attempts int
		ceilings []time.Duration
	}{
		{"UnaryCall: its own policy", func(c testpb.TestServiceClient) error {
			_, err := c.UnaryCall(context.Background(), &testpb.SimpleRequest{})
			return err
		}, codes.Unavailable, 3, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}},
		{"EmptyCall: named without a policy", func(c testpb.TestServiceClient) error {
			_, err := c.EmptyCall(context.Background(), &testpb.Empty{})
			return err
		}, codes.Unavailable, 1, nil},
		{"CacheableUnaryCall: the default, capped at 5", func(c testpb.TestServiceClient) error {
			_, err := c.CacheableUnaryCall(context.Background(), &testpb.SimpleRequest{})
			return err
		}, codes.Aborted, 5, []time.Duration{200 * time.Millisecond, 300 * time.Millisecond, 300 * time.Millisecond, 300 * time.Millisecond}},
		{"CacheableUnaryCall: UNAVAILABLE is not the default's code", func(c testpb.TestServiceClient) error {
			_, err := c.CacheableUnaryCall(context.Background(), &testpb.SimpleRequest{})
			return err
		}, codes.Unavailable, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := start(t, always(tt.fail))
			opts, clock := virtual()
			opts.Unthrottled = true // the config's 6 tokens would end the default's retries early
			client := dial(t, srv.addr, intercept(t, grpcretry.Config{ServiceConfig: sc, Options: opts}))
			if err := tt.call(client); status.Code(err) != tt.fail {
				t.Fatalf("error %v; want %v", err, tt.fail)
			}
			if got := srv.count(); got != tt.attempts {
				t.Errorf("server saw %d attempts; want %d", got, tt.attempts)
			}
			waits := clock.Sleeps()
			if len(waits) != len(tt.ceilings) {
				t.Fatalf("waits %v; want %d, below %v", waits, len(tt.ceilings), tt.ceilings)
			}
			for i, w := range waits {
				if w < 0 || w >= tt.ceilings[i] {
					t.Errorf("wait %d is %v; A6 wants it in [0, %v)", i+1, w, tt.ceilings[i])
				}
			}
		})
	}
}

// TestServiceConfigThrottling: retryThrottling configures the default
// budget: 6 tokens allow 2 failures before retries stop.
func TestServiceConfigThrottling(t *testing.T) {
	sc, err := grpcconfig.Parse([]byte(serviceConfig))
	if err != nil {
		t.Fatal(err)
	}
	srv := start(t, always(codes.Aborted))
	opts, _ := virtual()
	client := dial(t, srv.addr, intercept(t, grpcretry.Config{ServiceConfig: sc, Options: opts}))
	_, err = client.CacheableUnaryCall(context.Background(), &testpb.SimpleRequest{})
	re, ok := errors.AsType[*retry.Error](err)
	if !ok || re.Attempts != 3 || re.Reason != retry.Budget {
		t.Errorf("error %v; want 3 attempts ending on the budget (6 → 5 → 4 → 3 tokens, a retry needs more than 3)", err)
	}
}

// TestServiceConfigPlusMinus20: Jitter picks A6's revised formula.
func TestServiceConfigPlusMinus20(t *testing.T) {
	sc, err := grpcconfig.Parse([]byte(serviceConfig))
	if err != nil {
		t.Fatal(err)
	}
	srv := start(t, always(codes.Unavailable))
	opts, clock := virtual()
	client := dial(t, srv.addr, intercept(t, grpcretry.Config{ServiceConfig: sc, Jitter: grpcconfig.PlusMinus20, Options: opts}))
	client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
	waits := clock.Sleeps()
	ceilings := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}
	if len(waits) != 2 {
		t.Fatalf("waits %v; want 2", waits)
	}
	for i, w := range waits {
		if w < ceilings[i]*8/10 || w > ceilings[i]*12/10 {
			t.Errorf("wait %d is %v; A6 as revised wants it in [0.8, 1.2]·%v", i+1, w, ceilings[i])
		}
	}
}

func TestConfigErrors(t *testing.T) {
	budgets, err := budget.NewRegistry(budget.TokenBucketConfig{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := breaker.New(breaker.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s := schedule.Times{N: 3}
	tests := []struct {
		name string
		c    grpcretry.Config
		want string
	}{
		{"policy and service config", grpcretry.Config{Policy: s, ServiceConfig: &grpcconfig.ServiceConfig{}}, "grpcretry: Config sets both Policy and ServiceConfig"},
		{"invalid schedule", grpcretry.Config{Policy: schedule.Spaced{}}, "grpcretry: Config.Policy: Spaced: every 0s is not positive"},
		{"zero Times", grpcretry.Config{Policy: schedule.Times{}}, "grpcretry: Config.Policy: Times: n 0 is below 1"},
		{"invalid operand", grpcretry.Config{Policy: schedule.Intersect{A: schedule.Exponential{Base: 100 * time.Millisecond, FactorPct: 200, Cap: time.Second}, B: schedule.Times{}}}, "grpcretry: Config.Policy: Intersect.B.Times: n 0 is below 1"},
		{"unknown code", grpcretry.Config{Policy: s, Codes: []codes.Code{codes.Unavailable, 42}}, "grpcretry: Config.Codes holds Code(42), which gRPC does not define"},
		{"negative attempt timeout", grpcretry.Config{Policy: s, Options: retry.Options{AttemptTimeout: -1}}, "grpcretry: Config.Options: retry: negative Options.AttemptTimeout"},
		{"negative max pushback", grpcretry.Config{Policy: s, Options: retry.Options{MaxPushback: -1}}, "grpcretry: Config.Options: retry: negative Options.MaxPushback"},
		{"budget and unthrottled", grpcretry.Config{Policy: s, Budget: budgets, Options: retry.Options{Unthrottled: true}}, "grpcretry: Config sets both Budget and Options.Unthrottled"},
		// The interceptor sets Target, Breaker and Budget for each call:
		// set in Options they would be ignored, so they are refused.
		{"options target", grpcretry.Config{Policy: s, Options: retry.Options{Target: "elsewhere:443"}}, "grpcretry: Config.Options: retry: Options.Target is set"},
		{"options breaker", grpcretry.Config{Policy: s, Options: retry.Options{Breaker: b}}, "grpcretry: Config.Options: retry: Options.Breaker is set"},
		{"options budget", grpcretry.Config{Policy: s, Options: retry.Options{Budget: budgets.Get("t")}}, "grpcretry: Config.Options: retry: Options.Budget is set"},
		{"codes with a service config", grpcretry.Config{ServiceConfig: &grpcconfig.ServiceConfig{}, Codes: []codes.Code{codes.Aborted}}, "grpcretry: Config sets both Codes and ServiceConfig"},
		{"unconvertible service config", grpcretry.Config{ServiceConfig: &grpcconfig.ServiceConfig{Methods: []grpcconfig.MethodConfig{
			{Names: []grpcconfig.Name{{}}},
			{Names: []grpcconfig.Name{{Service: "a.A"}}, RetryPolicy: &grpcconfig.RetryPolicy{MaxAttempts: 3, InitialBackoff: time.Second, MaxBackoff: time.Second, BackoffMultiplier: 0.5, RetryableStatusCodes: []grpcconfig.Code{grpcconfig.Unavailable}}},
		}}}, "grpcretry: ServiceConfig.Methods[1]: grpcconfig: backoffMultiplier is 0.5, below 1"},
		{"bad throttling", grpcretry.Config{ServiceConfig: &grpcconfig.ServiceConfig{Throttling: &budget.TokenBucketConfig{MaxTokens: 5000}}}, "grpcretry: ServiceConfig.Throttling: budget: TokenBucketConfig.MaxTokens = 5000 is not from 1 to 1000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ic, err := grpcretry.UnaryClientInterceptor(tt.c)
			if err == nil {
				t.Fatal("no error")
			}
			if ic != nil {
				t.Error("an interceptor came with the error")
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error %q; want it to start %q", err, tt.want)
			}
			var se *schedule.Error
			if want := strings.HasPrefix(tt.want, "grpcretry: Config.Policy: "); errors.As(err, &se) != want {
				t.Errorf("errors.As(%v, *schedule.Error) = %v; want %v", err, !want, want)
			}
		})
	}
}
