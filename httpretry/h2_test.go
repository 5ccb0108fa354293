package httpretry_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/schedule"
)

// HTTP/2 frame types and flags (RFC 9113, section 6) that h2Server uses.
const (
	frameData         = 0x0
	frameHeaders      = 0x1
	frameRSTStream    = 0x3
	frameSettings     = 0x4
	framePing         = 0x6
	frameGoAway       = 0x7
	flagEndStream     = 0x1
	flagAck           = 0x1
	flagEndHeaders    = 0x4
	codeRefusedStream = 0x7
)

// h2Server is an HTTP/2 server written frame by frame over cleartext
// (h2c with prior knowledge), so that it can do what a well-behaved
// server library will not do on demand: refuse a stream, or send a GOAWAY
// below a stream it has just received. decide says what to do with the
// n-th stream (from 1) of the c-th connection (from 1).
type h2Server struct {
	*rawServer
	decide    func(c, n int64) string // "refuse", "goaway" or "ok"
	streams   atomic.Int64            // streams received: attempts
	processed atomic.Int64            // streams answered: requests the server ran
}

func newH2(t *testing.T, decide func(c, n int64) string) *h2Server {
	s := &h2Server{decide: decide}
	s.rawServer = newRaw(t, s.serve)
	return s
}

func writeFrame(c net.Conn, typ, flags byte, stream uint32, payload []byte) error {
	var h [9]byte
	h[0], h[1], h[2] = byte(len(payload)>>16), byte(len(payload)>>8), byte(len(payload))
	h[3], h[4] = typ, flags
	binary.BigEndian.PutUint32(h[5:], stream)
	_, err := c.Write(append(h[:], payload...))
	return err
}

func (s *h2Server) serve(conn int64, c *net.TCPConn, _ <-chan struct{}) { s.serveConn(conn, c) }

// serveConn speaks HTTP/2 on c, the conn-th connection, which may be a TLS
// connection.
func (s *h2Server) serveConn(conn int64, c net.Conn) {
	preface := make([]byte, len(http2Preface))
	if _, err := io.ReadFull(c, preface); err != nil || string(preface) != http2Preface {
		return
	}
	if writeFrame(c, frameSettings, 0, 0, nil) != nil {
		return
	}
	var n int64                      // streams on this connection
	refused := make(map[uint32]bool) // their DATA frames are ignored
	for {
		var h [9]byte
		if _, err := io.ReadFull(c, h[:]); err != nil {
			return
		}
		payload := make([]byte, int(h[0])<<16|int(h[1])<<8|int(h[2]))
		if _, err := io.ReadFull(c, payload); err != nil {
			return
		}
		typ, flags, stream := h[3], h[4], binary.BigEndian.Uint32(h[5:])&0x7fffffff
		switch {
		case typ == frameSettings && flags&flagAck == 0:
			writeFrame(c, frameSettings, flagAck, 0, nil)
		case typ == framePing && flags&flagAck == 0:
			writeFrame(c, framePing, flagAck, 0, payload)
		case typ == frameHeaders:
			s.streams.Add(1)
			n++
			switch s.decide(conn, n) {
			case "refuse":
				refused[stream] = true
				writeFrame(c, frameRSTStream, 0, stream, binary.BigEndian.AppendUint32(nil, codeRefusedStream))
			case "goaway":
				last := binary.BigEndian.AppendUint32(nil, max(stream, 2)-2) // below this stream: it was not processed
				writeFrame(c, frameGoAway, 0, 0, binary.BigEndian.AppendUint32(last, 0))
				return // and close the connection
			default:
				if flags&flagEndStream != 0 {
					s.answer(c, stream)
				}
			}
		case typ == frameData && flags&flagEndStream != 0 && !refused[stream]:
			s.answer(c, stream) // the request body is complete
		}
	}
}

// answer sends 200 with no body: HPACK's static table entry 8 is
// ":status: 200".
func (s *h2Server) answer(c net.Conn, stream uint32) {
	s.processed.Add(1)
	writeFrame(c, frameHeaders, flagEndHeaders|flagEndStream, stream, []byte{0x88})
}

const http2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// newH2Base returns a net/http transport that speaks HTTP/2 over
// cleartext with prior knowledge.
func newH2Base(t *testing.T) *http.Transport {
	b := newBase(t)
	b.Protocols = new(http.Protocols)
	b.Protocols.SetUnencryptedHTTP2(true)
	return b
}

// h2Outcome is what an HTTP/2 call did as the server saw it.
type h2Outcome struct {
	Status    int
	Conns     int64
	Streams   int64
	Processed int64
}

// TestHTTP2NotProcessedIsResent checks the always-safe retries on HTTP/2:
// a stream the server refused, and a stream above a GOAWAY's last stream
// ID, were not processed, so even a POST without an idempotency key is
// sent again — and is processed once. net/http's HTTP/2 transport makes
// these retries itself, under Base, so they happen on a Transport whose
// Policy makes no retries; httpretry does not add a second layer of them.
func TestHTTP2NotProcessedIsResent(t *testing.T) {
	for _, tc := range []struct {
		name   string
		decide func(c, n int64) string
		want   h2Outcome
	}{
		{
			name: "REFUSED_STREAM",
			decide: func(c, n int64) string {
				if c == 1 && n == 1 {
					return "refuse"
				}
				return "ok"
			},
			want: h2Outcome{Status: 200, Conns: 1, Streams: 2, Processed: 1},
		},
		{
			name: "GOAWAY below the stream",
			decide: func(c, n int64) string {
				if c == 1 {
					return "goaway"
				}
				return "ok"
			},
			want: h2Outcome{Status: 200, Conns: 2, Streams: 2, Processed: 1},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newH2(t, tc.decide)
			tr := &httpretry.Transport{Base: newH2Base(t), Policy: schedule.Times{N: 1}} // no retries of its own
			req := variant{method: "POST", body: "rewind"}.request(t, context.Background(), srv.URL())
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.ProtoMajor != 2 {
				t.Errorf("protocol %s; want HTTP/2", resp.Proto)
			}
			got := h2Outcome{resp.StatusCode, srv.conns.Load(), srv.streams.Load(), srv.processed.Load()}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestHTTP2Retries checks httpretry's own retries over a real HTTP/2
// connection: a GET answered 503 is retried on the same connection.
func TestHTTP2Retries(t *testing.T) {
	srv := newH2(t, func(c, n int64) string { return "ok" })
	tr := &httpretry.Transport{Budget: ownBudgets(), Base: newH2Base(t), Policy: schedule.Times{N: 3}}
	resp, err := tr.RoundTrip(variant{method: "GET"}.request(t, context.Background(), srv.URL()))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := h2Outcome{resp.StatusCode, srv.conns.Load(), srv.streams.Load(), srv.processed.Load()}
	if diff := cmp.Diff(h2Outcome{Status: 200, Conns: 1, Streams: 1, Processed: 1}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// streamError mimics net/http's unexported http2StreamError, down to its
// As method, which copies it into any struct of the same shape (net/http
// keeps that method so that golang.org/x/net/http2.StreamError matches).
// net/http returns a refused stream to its caller only after retrying it
// itself for about a minute, too long for a test, so a fake Base returns
// this instead.
type streamError struct {
	StreamID uint32
	Code     uint32
	Cause    error
}

func (e streamError) Error() string { return "stream error: REFUSED_STREAM" }

func (e streamError) As(target any) bool {
	dst := reflect.ValueOf(target).Elem()
	if dst.Kind() != reflect.Struct || dst.NumField() != 3 {
		return false
	}
	src := reflect.ValueOf(e)
	for i := range 3 {
		if src.Type().Field(i).Name != dst.Type().Field(i).Name || !src.Field(i).Type().ConvertibleTo(dst.Field(i).Type()) {
			return false
		}
	}
	for i := range 3 {
		dst.Field(i).Set(src.Field(i).Convert(dst.Field(i).Type()))
	}
	return true
}

// roundTripFunc is a fake Base.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestRefusedStreamFromBase checks how httpretry judges a refused stream
// that Base gave up on: a POST without a key is retried (the server did
// not process it), and the breaker counts nothing against the target.
func TestRefusedStreamFromBase(t *testing.T) {
	var calls atomic.Int64
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		calls.Add(1)
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, streamError{StreamID: 1, Code: 0x7}
	})
	reg := counter(t)
	tr := &httpretry.Transport{Budget: ownBudgets(), Base: base, Policy: schedule.Times{N: 3}, Breaker: reg}
	_, err := tr.RoundTrip(variant{method: "POST", body: "rewind"}.request(t, context.Background(), "http://h2.test"))
	var se streamError
	if !errors.As(err, &se) {
		t.Errorf("err = %v; want the stream error", err)
	}
	st := reg.Get("http://h2.test:80").Stats()
	got := []int64{calls.Load(), int64(reported(err)), int64(st.Failures)}
	if diff := cmp.Diff([]int64{3, 3, 0}, got); diff != "" {
		t.Errorf("calls, reported attempts, failures (-want +got):\n%s", diff)
	}
}
