package grpcretry_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	testpb "google.golang.org/grpc/interop/grpc_testing"

	"github.com/recur-go/recur/grpcretry"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// rawGRPC is a gRPC server written frame by frame over HTTP/2, so that it
// can do what grpc-go's own server will not do on demand: refuse a stream
// with REFUSED_STREAM, or send a GOAWAY whose last stream ID is below the
// stream it has just received. Either way the call was provably never
// processed, and grpc-go sends it again by itself (its transparent retry,
// gRFC A6), even with WithDisableRetry. decide says what to do with the
// n-th stream (from 1) the server receives: "refuse", "goaway" or "ok".
type rawGRPC struct {
	addr      string
	decide    func(n int64) string
	streams   atomic.Int64 // HEADERS received: attempts on the wire
	processed atomic.Int64 // calls answered: what the server ran
	conns     atomic.Int64
}

func startRawGRPC(t *testing.T, decide func(n int64) string) *rawGRPC {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawGRPC{addr: l.Addr().String(), decide: decide}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var open []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s.conns.Add(1)
			mu.Lock()
			open = append(open, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				s.serve(c)
			}()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return s
}

func (s *rawGRPC) serve(c net.Conn) {
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(c, preface); err != nil || string(preface) != http2.ClientPreface {
		return
	}
	fr := http2.NewFramer(c, c)
	if fr.WriteSettings() != nil {
		return
	}
	refused := map[uint32]bool{}
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				fr.WriteSettingsAck()
			}
		case *http2.PingFrame:
			if !f.IsAck() {
				fr.WritePing(true, f.Data)
			}
		case *http2.HeadersFrame:
			n := s.streams.Add(1)
			id := f.StreamID
			switch s.decide(n) {
			case "refuse":
				refused[id] = true
				fr.WriteRSTStream(id, http2.ErrCodeRefusedStream)
			case "goaway":
				last := uint32(0)
				if id > 2 {
					last = id - 2
				}
				fr.WriteGoAway(last, http2.ErrCodeNo, nil) // below this stream: not processed
				return                                     // and close the connection
			default:
				if f.StreamEnded() {
					s.answer(fr, id)
				}
			}
		case *http2.DataFrame:
			if f.StreamEnded() && !refused[f.StreamID] {
				s.answer(fr, f.StreamID) // the request message is complete
			}
		}
	}
}

// answer ends the call on stream id with an empty message and status OK.
func (s *rawGRPC) answer(fr *http2.Framer, id uint32) {
	s.processed.Add(1)
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	enc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
	enc.WriteField(hpack.HeaderField{Name: "content-type", Value: "application/grpc"})
	fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: hb.Bytes(), EndHeaders: true})
	fr.WriteData(id, false, []byte{0, 0, 0, 0, 0}) // uncompressed, length 0: an empty SimpleResponse
	hb.Reset()
	enc.WriteField(hpack.HeaderField{Name: "grpc-status", Value: "0"})
	fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: hb.Bytes(), EndHeaders: true, EndStream: true})
}

// A call the server provably never processed — its stream refused with
// REFUSED_STREAM, or past a GOAWAY's last stream ID — is sent again once
// by grpc-go itself, below recur: the interceptor sees one attempt that
// succeeds, the server two streams of which it ran one. That is what
// docs/grpc.md says WithDisableRetry leaves on, and why it is safe for
// any method: the server never ran the first.
func TestTransparentResendOfUnprocessedCall(t *testing.T) {
	type outcome struct {
		Attempts  int   // what recur's runner made
		Streams   int64 // what reached the server
		Processed int64 // what the server ran
		Failed    bool  // the call returned an error
	}
	for _, tc := range []struct {
		name   string
		decide func(n int64) string
		want   outcome
	}{
		{"REFUSED_STREAM", func(n int64) string {
			if n == 1 {
				return "refuse"
			}
			return "ok"
		}, outcome{Attempts: 1, Streams: 2, Processed: 1}},
		{"GOAWAY below the stream", func(n int64) string {
			if n == 1 {
				return "goaway"
			}
			return "ok"
		}, outcome{Attempts: 1, Streams: 2, Processed: 1}},
		// Once: a second refusal reaches recur as UNAVAILABLE, which its
		// schedule (here, none) then decides about.
		{"REFUSED_STREAM twice", func(n int64) string {
			if n <= 2 {
				return "refuse"
			}
			return "ok"
		}, outcome{Attempts: 1, Streams: 2, Processed: 0, Failed: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startRawGRPC(t, tc.decide)
			attempts := 0
			obs := retry.ObserverFunc(func(_ context.Context, e retry.Event) {
				if e.Kind == retry.Attempted {
					attempts++
				}
			})
			ic, err := grpcretry.UnaryClientInterceptor(grpcretry.Config{
				Policy:  schedule.Times{N: 1}, // recur retries nothing here
				Options: retry.Options{Observer: obs},
			})
			if err != nil {
				t.Fatal(err)
			}
			conn, err := grpc.NewClient(srv.addr,
				grpc.WithTransportCredentials(insecure.NewCredentials()),
				grpc.WithDisableRetry(),
				grpc.WithUnaryInterceptor(ic))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, err = testpb.NewTestServiceClient(conn).UnaryCall(ctx, &testpb.SimpleRequest{})
			if err != nil {
				t.Logf("UnaryCall: %v", err)
			}
			got := outcome{Attempts: attempts, Streams: srv.streams.Load(), Processed: srv.processed.Load(), Failed: err != nil}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
