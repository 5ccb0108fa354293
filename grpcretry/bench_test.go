package grpcretry_test

import (
	"context"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/status"

	"github.com/recur-go/recur/grpcretry"
	"github.com/recur-go/recur/parse"
)

// BenchmarkInterceptor measures what the interceptor adds to a call, with
// an invoker that answers at once: the default Config (token bucket per
// target) on a call that succeeds, and on one that fails once with
// UNAVAILABLE before it succeeds (virtual clock: no real wait; no budget).
func BenchmarkInterceptor(b *testing.B) {
	ok := func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error { return nil }
	for _, bc := range []struct {
		name        string
		unthrottled bool // one failure per call would empty the token bucket
		invoker     grpc.UnaryInvoker
	}{
		{"success", false, ok},
		{"one-retry", true, func() grpc.UnaryInvoker {
			n := 0
			return func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error {
				n++
				if n%2 == 1 {
					return status.Error(codes.Unavailable, "down")
				}
				return nil
			}
		}()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			opts, _ := virtual()
			opts.Unthrottled = bc.unthrottled
			ic, err := grpcretry.UnaryClientInterceptor(grpcretry.Config{Policy: steady(3), Options: opts})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if err := ic(ctx, "/grpc.testing.TestService/UnaryCall", nil, nil, nil, bc.invoker); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLoopback is a whole unary call to a real server on loopback,
// without and with the interceptor: the interceptor's share of a real
// call.
func BenchmarkLoopback(b *testing.B) {
	for _, with := range []bool{false, true} {
		name := "plain"
		if with {
			name = "grpcretry"
		}
		b.Run(name, func(b *testing.B) {
			srv := start(b, nil)
			var ics []grpc.UnaryClientInterceptor
			if with {
				ic, err := grpcretry.UnaryClientInterceptor(grpcretry.Config{Policy: parse.MustParse("fulljitter(10ms, 1s) & times(3)")})
				if err != nil {
					b.Fatal(err)
				}
				ics = append(ics, ic)
			}
			client := dial(b, srv.addr, ics...)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := client.UnaryCall(ctx, &testpb.SimpleRequest{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
