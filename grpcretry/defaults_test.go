package grpcretry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	testpb "google.golang.org/grpc/interop/grpc_testing"

	"github.com/recur-go/recur/grpcretry"
	"github.com/recur-go/recur/retry"
)

// The zero Config retries UNAVAILABLE on retry.DefaultSchedule: three
// attempts in all.
func TestZeroConfigDefaultPolicy(t *testing.T) {
	srv := start(t, failFirst(2, codes.Unavailable))
	opts, _ := virtual()
	client := dial(t, srv.addr, intercept(t, grpcretry.Config{Options: opts}))
	if _, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{}); err != nil {
		t.Fatalf("UnaryCall: %v", err)
	}
	if got := srv.count(); got != 3 {
		t.Errorf("server saw %d attempts; want 3", got)
	}
}

// A hundred calls of the default policy against a server that answers
// every call UNAVAILABLE, with no throttle configured, make 103 attempts
// where the policy alone would make 300: the target's shared default
// budget allows three retries before it is half empty.
func TestDeadTargetThrottledByDefault(t *testing.T) {
	for _, tc := range []struct {
		name        string
		unthrottled bool
		want        int
	}{{"default", false, 103}, {"Unthrottled", true, 300}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := start(t, always(codes.Unavailable))
			opts, _ := virtual()
			opts.Unthrottled = tc.unthrottled
			client := dial(t, srv.addr, intercept(t, grpcretry.Config{Options: opts}))
			for range 100 {
				if _, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{}); err == nil {
					t.Fatal("a call to a server that fails every call succeeded")
				}
			}
			t.Logf("100 calls, %d attempts", srv.count())
			if got := srv.count(); got != tc.want {
				t.Errorf("100 calls made %d attempts; want %d", got, tc.want)
			}
		})
	}
}

// A call whose context is already done never reaches the server, nor
// the network: it returns at once with the context's error.
func TestDoneContextNeverSent(t *testing.T) {
	srv := start(t, always(codes.Unavailable))
	opts, _ := virtual()
	client := dial(t, srv.addr, intercept(t, grpcretry.Config{Options: opts}))
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, err := client.UnaryCall(ctx, &testpb.SimpleRequest{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v; want context.DeadlineExceeded", err)
	}
	var re *retry.Error
	if errors.As(err, &re) && (re.Attempts != 0 || re.Reason != retry.Deadline) {
		t.Errorf("err = %v; want a give-up after 0 attempts for the deadline", err)
	}
	if got := srv.count(); got != 0 {
		t.Errorf("server saw %d attempts; want none", got)
	}
}
