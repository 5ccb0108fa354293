package grpcretry_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/recur-go/recur/grpcconfig"
	"github.com/recur-go/recur/grpcretry"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/retry"
)

// firstSlow answers the first copy of a call (the one without
// grpc-previous-rpc-attempts) after d, or when it is canceled, and every
// later copy at once.
func firstSlow(d time.Duration) func(context.Context, int) error {
	return func(ctx context.Context, _ int) error {
		md, _ := metadata.FromIncomingContext(ctx)
		if len(md.Get(grpcretry.PreviousAttemptsHeader)) > 0 {
			return nil
		}
		select {
		case <-time.After(d):
			return nil
		case <-ctx.Done():
			return status.FromContextError(ctx.Err()).Err()
		}
	}
}

// A hedged call whose first copy is slow is answered by the second,
// started 10ms later, with grpc-previous-rpc-attempts 1; the reply is the
// winner's.
func TestHedgeUnary(t *testing.T) {
	srv := start(t, firstSlow(2*time.Second))
	client := dial(t, srv.addr, intercept(t, grpcretry.Config{Policy: parse.MustParse("spaced(10ms) & times(3)"), Hedge: true, Options: retry.Options{Unthrottled: true}}))
	begin := time.Now()
	reply, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
	took := time.Since(begin)
	if err != nil || reply.GetUsername() != "ok" {
		t.Fatalf("UnaryCall = %v, %v; want the second copy's reply", reply, err)
	}
	if took > time.Second {
		t.Errorf("the call took %v; the second copy answers at once after 10ms", took)
	}
	prev := srv.previous()
	sort.Strings(prev)
	if diff := cmp.Diff([]string{"", "1"}, prev); diff != "" {
		t.Errorf("grpc-previous-rpc-attempts of the copies (-want +got):\n%s", diff)
	}
}

// A fatal code (not in the non-fatal codes) ends the call at once, every
// other copy canceled; a non-fatal one starts the next copy at once.
func TestHedgeFatalAndNonFatal(t *testing.T) {
	srv := start(t, func(ctx context.Context, n int) error {
		if n == 1 {
			return status.Error(codes.Unavailable, "warming up") // non-fatal: the next copy now
		}
		return status.Error(codes.InvalidArgument, "bad request") // fatal
	})
	client := dial(t, srv.addr, intercept(t, grpcretry.Config{Policy: parse.MustParse("spaced(1h) & times(4)"), Hedge: true, Options: retry.Options{Unthrottled: true}}))
	begin := time.Now()
	_, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("err = %v; want the fatal INVALID_ARGUMENT", err)
	}
	if took := time.Since(begin); took > 30*time.Second || srv.count() != 2 {
		t.Errorf("%d copies in %v; want 2, the second started at once", srv.count(), took)
	}
}

// A service config's hedgingPolicy hedges the methods it names (gRFC A6's
// example), and a method config with both policies is refused.
func TestHedgingPolicyFromServiceConfig(t *testing.T) {
	sc, err := grpcconfig.Parse([]byte(`{"methodConfig": [{
		"name": [{"service": "grpc.testing.TestService", "method": "UnaryCall"}],
		"hedgingPolicy": {"maxAttempts": 3, "hedgingDelay": "0.010s", "nonFatalStatusCodes": ["UNAVAILABLE"]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	srv := start(t, firstSlow(2*time.Second))
	client := dial(t, srv.addr, intercept(t, grpcretry.Config{ServiceConfig: sc, Options: retry.Options{Unthrottled: true}}))
	begin := time.Now()
	if _, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{}); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(begin); took > time.Second || srv.count() != 2 {
		t.Errorf("%d copies in %v; want 2, the call answered by the second", srv.count(), took)
	}
	if _, err := grpcretry.UnaryClientInterceptor(grpcretry.Config{Policy: parse.MustParse("times(2)"), Hedge: true, ServiceConfig: sc}); err == nil {
		t.Error("Hedge with a ServiceConfig: no error")
	}
	_, err = grpcconfig.Parse([]byte(`{"methodConfig": [{"name": [{}],
		"retryPolicy": {"maxAttempts": 2, "initialBackoff": "1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": [14]},
		"hedgingPolicy": {"maxAttempts": 2}}]}`))
	if err == nil {
		t.Error("a method config with both policies: no error")
	}
}

// A negative pushback on a non-fatal answer starts no further copy.
func TestHedgePushbackStops(t *testing.T) {
	srv := start(t, func(ctx context.Context, n int) error {
		_ = grpc.SetTrailer(ctx, metadata.Pairs(grpcretry.PushbackHeader, "-1"))
		return status.Error(codes.Unavailable, "go away")
	})
	client := dial(t, srv.addr, intercept(t, grpcretry.Config{Policy: parse.MustParse("spaced(10ms) & times(5)"), Hedge: true, Options: retry.Options{Unthrottled: true}}))
	_, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
	if status.Code(err) != codes.Unavailable || srv.count() != 1 {
		t.Errorf("err = %v after %d copies; want UNAVAILABLE after 1", err, srv.count())
	}
}
