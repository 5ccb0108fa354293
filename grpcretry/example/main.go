// Command example shows grpcretry at work against a real gRPC server on
// loopback. It starts a server whose calls fail with UNAVAILABLE before
// they succeed, and whose last call pushes back, then makes calls through
// a client whose policy comes from a gRPC service config, and prints what
// each side saw.
//
//	cd grpcretry && go run ./example
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/grpcconfig"
	"github.com/recur-go/recur/grpcretry"
	"github.com/recur-go/recur/retry"
)

// serviceConfig is what a gRPC client would pass to
// grpc.WithDefaultServiceConfig; here recur reads it instead.
const serviceConfig = `{
  "methodConfig": [{
    "name": [{"service": "grpc.testing.TestService"}],
    "retryPolicy": {
      "maxAttempts": 4,
      "initialBackoff": "0.01s",
      "maxBackoff": "0.1s",
      "backoffMultiplier": 2,
      "retryableStatusCodes": ["UNAVAILABLE"]
    }
  }],
  "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}
}`

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "example:", err)
		os.Exit(1)
	}
}

// run starts the server, makes the calls and writes what happened to w.
func run(w io.Writer) error {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := grpc.NewServer()
	svc := &service{w: w}
	testpb.RegisterTestServiceServer(srv, svc)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	defer func() {
		srv.Stop()
		<-served
	}()

	sc, err := grpcconfig.Parse([]byte(serviceConfig))
	if err != nil {
		return err
	}
	breakers, err := breaker.NewRegistry(breaker.Config{ConsecutiveFailures: 3}, 0)
	if err != nil {
		return err
	}
	retrying, err := grpcretry.UnaryClientInterceptor(grpcretry.Config{
		ServiceConfig: sc,
		Breaker:       breakers,
		Options: retry.Options{
			AttemptTimeout: time.Second,
			Observer: retry.ObserverFunc(func(_ context.Context, e retry.Event) {
				if e.Kind == retry.Retrying {
					fmt.Fprintf(w, "client: attempt %d failed with %v; retrying\n", e.Attempt, status.Code(e.Err))
				}
			}),
		},
	})
	if err != nil {
		return err
	}
	conn, err := grpc.NewClient(lis.Addr().String(),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDisableRetry(), // grpcretry retries; grpc-go must not as well
		grpc.WithChainUnaryInterceptor(retrying))
	if err != nil {
		return err
	}
	defer conn.Close()
	client := testpb.NewTestServiceClient(conn)

	for _, plan := range []string{"fail twice", "push back", "fail always", "fail always"} {
		svc.set(plan)
		fmt.Fprintf(w, "-- call: the server will %s\n", plan)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		resp, err := client.UnaryCall(ctx, &testpb.SimpleRequest{})
		cancel()
		if err != nil {
			fmt.Fprintf(w, "client: %v (status %v)\n", err, status.Code(err))
			continue
		}
		fmt.Fprintf(w, "client: got %q\n", resp.GetUsername())
	}
	return nil
}

// service fails calls according to its plan.
type service struct {
	testpb.UnimplementedTestServiceServer
	w io.Writer

	mu   sync.Mutex
	plan string
	n    int // attempts of the current call
}

func (s *service) set(plan string) {
	s.mu.Lock()
	s.plan, s.n = plan, 0
	s.mu.Unlock()
}

func (s *service) UnaryCall(ctx context.Context, _ *testpb.SimpleRequest) (*testpb.SimpleResponse, error) {
	s.mu.Lock()
	s.n++
	n, plan := s.n, s.plan
	s.mu.Unlock()
	md, _ := metadata.FromIncomingContext(ctx)
	fmt.Fprintf(s.w, "server: attempt %d, grpc-previous-rpc-attempts %q\n", n, md.Get(grpcretry.PreviousAttemptsHeader))
	switch {
	case plan == "fail twice" && n <= 2, plan == "fail always":
		return nil, status.Error(codes.Unavailable, "warming up")
	case plan == "push back":
		grpc.SetTrailer(ctx, metadata.Pairs(grpcretry.PushbackHeader, "-1")) // do not retry
		return nil, status.Error(codes.Unavailable, "overloaded")
	}
	return &testpb.SimpleResponse{Username: "hello after " + fmt.Sprint(n) + " attempts"}, nil
}
