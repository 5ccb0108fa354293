package grpcretry_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/recur-go/recur/grpcretry"
)

// seen is what the server saw of one attempt.
type seen struct {
	Method string
	// Previous is the grpc-previous-rpc-attempts metadata, "" when absent.
	Previous string
	// Deadline is the deadline the server's context had, from grpc-timeout.
	Deadline    time.Time
	HasDeadline bool
}

// server is grpc-go's interop test service on a real loopback listener,
// with a behaviour per test. behave gets the attempt's number as the
// server counts them, from 1, and returns the handler's error.
type server struct {
	testpb.UnimplementedTestServiceServer
	addr   string
	lis    *listener
	behave func(ctx context.Context, n int) error

	mu    sync.Mutex
	calls []seen
}

// start runs a server on 127.0.0.1 until the test ends.
func start(t testing.TB, behave func(ctx context.Context, n int) error) *server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{addr: l.Addr().String(), lis: &listener{Listener: l, conns: map[string]net.Conn{}}, behave: behave}
	gs := grpc.NewServer()
	testpb.RegisterTestServiceServer(gs, s)
	done := make(chan struct{})
	go func() {
		defer close(done)
		gs.Serve(s.lis)
	}()
	t.Cleanup(func() {
		gs.Stop()
		<-done
	})
	return s
}

// handle records the attempt and runs the behaviour.
func (s *server) handle(ctx context.Context, method string) error {
	sn := seen{Method: method}
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if v := md.Get(grpcretry.PreviousAttemptsHeader); len(v) > 0 {
			sn.Previous = v[0]
		}
	}
	sn.Deadline, sn.HasDeadline = ctx.Deadline()
	s.mu.Lock()
	s.calls = append(s.calls, sn)
	n := len(s.calls)
	s.mu.Unlock()
	if s.behave == nil {
		return nil
	}
	return s.behave(ctx, n)
}

func (s *server) UnaryCall(ctx context.Context, _ *testpb.SimpleRequest) (*testpb.SimpleResponse, error) {
	if err := s.handle(ctx, "UnaryCall"); err != nil {
		return nil, err
	}
	return &testpb.SimpleResponse{Username: "ok"}, nil
}

func (s *server) EmptyCall(ctx context.Context, _ *testpb.Empty) (*testpb.Empty, error) {
	if err := s.handle(ctx, "EmptyCall"); err != nil {
		return nil, err
	}
	return &testpb.Empty{}, nil
}

func (s *server) CacheableUnaryCall(ctx context.Context, _ *testpb.SimpleRequest) (*testpb.SimpleResponse, error) {
	if err := s.handle(ctx, "CacheableUnaryCall"); err != nil {
		return nil, err
	}
	return &testpb.SimpleResponse{}, nil
}

func (s *server) StreamingOutputCall(_ *testpb.StreamingOutputCallRequest, stream grpc.ServerStreamingServer[testpb.StreamingOutputCallResponse]) error {
	return s.handle(stream.Context(), "StreamingOutputCall")
}

// seen returns the attempts the server saw so far.
func (s *server) seen() []seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seen(nil), s.calls...)
}

// previous returns the grpc-previous-rpc-attempts of every attempt.
func (s *server) previous() []string {
	var out []string
	for _, c := range s.seen() {
		out = append(out, c.Previous)
	}
	return out
}

// count returns how many attempts the server saw.
func (s *server) count() int { return len(s.seen()) }

// closeConn closes the connection that carried the call of ctx, as a
// server that crashes mid-call would.
func (s *server) closeConn(ctx context.Context) {
	if p, ok := peer.FromContext(ctx); ok {
		s.lis.close(p.Addr.String())
	}
}

// listener keeps the connections it accepts, by the client's address.
type listener struct {
	net.Listener
	mu    sync.Mutex
	conns map[string]net.Conn
}

func (l *listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.mu.Lock()
		l.conns[c.RemoteAddr().String()] = c
		l.mu.Unlock()
	}
	return c, err
}

func (l *listener) close(remote string) {
	l.mu.Lock()
	c := l.conns[remote]
	delete(l.conns, remote)
	l.mu.Unlock()
	if c != nil {
		c.Close()
	}
}

// dial connects to the server through the interceptors, with grpc-go's
// own retries off, until the test ends.
func dial(t testing.TB, addr string, interceptors ...grpc.UnaryClientInterceptor) testpb.TestServiceClient {
	t.Helper()
	conn, err := grpc.NewClient(addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDisableRetry(),
		grpc.WithChainUnaryInterceptor(interceptors...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return testpb.NewTestServiceClient(conn)
}

// failFirst fails the first n attempts with code, then succeeds.
func failFirst(n int, code codes.Code) func(context.Context, int) error {
	return func(_ context.Context, k int) error {
		if k <= n {
			return status.Errorf(code, "attempt %d fails", k)
		}
		return nil
	}
}

// always fails every attempt with code.
func always(code codes.Code) func(context.Context, int) error {
	return func(_ context.Context, k int) error { return status.Errorf(code, "attempt %d fails", k) }
}

// hang waits for the attempt's context to end.
func hang(ctx context.Context, _ int) error {
	<-ctx.Done()
	return status.FromContextError(ctx.Err()).Err()
}
