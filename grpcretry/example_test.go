package grpcretry_test

import (
	"context"
	"fmt"
	"log"
	"net"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/recur-go/recur/grpcretry"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

// flaky fails the first two attempts of every call with UNAVAILABLE and
// reports the grpc-previous-rpc-attempts it sees.
type flaky struct {
	testpb.UnimplementedTestServiceServer
	n atomic.Int32
}

func (f *flaky) UnaryCall(ctx context.Context, _ *testpb.SimpleRequest) (*testpb.SimpleResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	fmt.Printf("server: attempt with grpc-previous-rpc-attempts %q\n", md.Get(grpcretry.PreviousAttemptsHeader))
	if f.n.Add(1)%3 != 0 {
		return nil, status.Error(codes.Unavailable, "warming up")
	}
	return &testpb.SimpleResponse{Username: "hello"}, nil
}

func Example() {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	srv := grpc.NewServer()
	testpb.RegisterTestServiceServer(srv, &flaky{})
	go srv.Serve(lis)
	defer srv.Stop()

	retrying, err := grpcretry.UnaryClientInterceptor(grpcretry.Config{
		Policy: parse.MustParse("fulljitter(10ms, 100ms) & times(4)"),
	})
	if err != nil {
		log.Fatal(err)
	}
	conn, err := grpc.NewClient(lis.Addr().String(),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDisableRetry(),
		grpc.WithChainUnaryInterceptor(retrying))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := testpb.NewTestServiceClient(conn).UnaryCall(ctx, &testpb.SimpleRequest{})
	fmt.Println("client:", resp.GetUsername(), err)
	// Output:
	// server: attempt with grpc-previous-rpc-attempts []
	// server: attempt with grpc-previous-rpc-attempts ["1"]
	// server: attempt with grpc-previous-rpc-attempts ["2"]
	// client: hello <nil>
}

// A policy read from a file or a flag is parsed before it reaches the
// Config, so a typo is reported where it is read; a Config whose policy
// is built invalid in Go is refused by UnaryClientInterceptor.
func ExampleUnaryClientInterceptor_badPolicy() {
	_, err := parse.Parse("fulljitter(100ms, 2s) & tiems(4)")
	fmt.Println(err)
	_, err = grpcretry.UnaryClientInterceptor(grpcretry.Config{Policy: schedule.Times{N: 0}})
	fmt.Println(err)
	// Output:
	// 1:25: unknown name "tiems"; did you mean "Times"?
	// grpcretry: Config.Policy: Times: n 0 is below 1
}
