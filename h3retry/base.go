package h3retry

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"sync/atomic"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/recur-go/recur/httpretry"
)

// Base is an httpretry Base that makes each attempt through an
// *http3.Transport and classifies its errors for httpretry
// (httpretry.ErrorClassifier): which prove that the request was not
// processed, so that it may be sent again whatever its method, and which
// lost a connection the request had been sent on. It also tells httpretry
// that one attempt opens at most two QUIC connections
// (httpretry.ConnBounder).
//
// The zero Base makes its requests through an http3.Transport of its own,
// with quic-go's defaults, made on first use. A Base is safe for
// concurrent use; set Transport before its first use.
type Base struct {
	// Transport makes the requests; nil means a new http3.Transport{},
	// which Close closes. Its TLSClientConfig, QUICConfig and Dial are
	// used as they are.
	Transport *http3.Transport

	once sync.Once
	t    *http3.Transport
}

var (
	_ http.RoundTripper         = (*Base)(nil)
	_ httpretry.ErrorClassifier = (*Base)(nil)
	_ httpretry.ConnBounder     = (*Base)(nil)
)

func (b *Base) transport() *http3.Transport {
	b.once.Do(func() {
		b.t = b.Transport
		if b.t == nil {
			b.t = &http3.Transport{}
		}
	})
	return b.t
}

// sent follows one RoundTrip through net/http's client trace, which
// quic-go's http3 client calls: whether it got as far as asking for a
// connection (the request was valid), and whether its last try wrote the
// request's HEADERS frame on a stream.
//
// quic-go's client makes a second try of a request (and asks for a
// connection again) only after a first that it knows was not processed
// (http3.Transport's canRetryRequest: a stream that could not be opened,
// or one rejected with H3_REQUEST_REJECTED): so what the whole RoundTrip
// proves is what its last try does.
type sent struct {
	trace httptrace.ClientTrace
	asked atomic.Bool
	wrote atomic.Bool
}

func (s *sent) getConn(string) {
	s.asked.Store(true)
	s.wrote.Store(false) // a new try
}

func (s *sent) wroteHeaders() { s.wrote.Store(true) }

// RoundTrip makes one attempt through the Transport. When it fails before
// a byte of the request's HEADERS frame was written on its last stream (the
// QUIC connection could not be made, or went away or closed before the
// stream was opened, or a GOAWAY had come), its error says so to
// ClassifyError, and to Unprocessed; the error still wraps what quic-go
// returned.
//
// quic-go's http3 client has by then already sent the request once more
// itself, on a new connection, if the first stream was rejected
// (H3_REQUEST_REJECTED) or could not be opened and its body could be sent
// again: this Base adds no resend of its own, it only tells httpretry what
// the error proves.
func (b *Base) RoundTrip(req *http.Request) (*http.Response, error) {
	s := new(sent)
	s.trace.GetConn = s.getConn
	s.trace.WroteHeaders = s.wroteHeaders
	resp, err := b.transport().RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), &s.trace)))
	if err != nil {
		// An extended CONNECT may fail, unsent, because of what the
		// server's SETTINGS allow: nothing that a resend would change.
		if s.asked.Load() && !s.wrote.Load() && req.Method != http.MethodConnect {
			err = &notSentError{err: err}
		}
		return nil, err
	}
	resp.Request = req
	return resp, nil
}

// ClassifyError says what err, from RoundTrip (possibly wrapped by
// httpretry), proves about its request:
//
//   - httpretry.Rejected: the server reset the request's stream with
//     H3_REQUEST_REJECTED (an *http3.Error, or a *quic.StreamError, with
//     that code, from the server): it did not process it (RFC 9114,
//     section 4.1.1), as a server in graceful shutdown does for every
//     stream at or past its GOAWAY's stream ID;
//   - httpretry.NotSent: no byte of the request's HEADERS frame was
//     written: the connection could not be made (a handshake that failed
//     or timed out, a DNS failure), or could not take the request (closed,
//     or going away after a GOAWAY) before it was written;
//   - httpretry.ConnectionLost: the connection or the stream failed after
//     the request was written (a *quic.ApplicationError, a
//     *quic.TransportError, a *quic.IdleTimeoutError, a stateless reset,
//     or a stream reset with another code: anything that wraps
//     net.ErrClosed, *http3.Error or *quic.StreamError): the server may
//     have processed it;
//   - httpretry.Unclassified: anything else, including
//     http3.ErrTransportClosed (the Transport was closed: no resend
//     helps), for httpretry's own rules.
func (b *Base) ClassifyError(err error) httpretry.ErrorClass { return classify(err) }

func classify(err error) httpretry.ErrorClass {
	if rejected(err) {
		return httpretry.Rejected
	}
	if _, ok := errors.AsType[*notSentError](err); ok {
		if errors.Is(err, http3.ErrTransportClosed) {
			return httpretry.Unclassified
		}
		return httpretry.NotSent
	}
	if lost(err) {
		return httpretry.ConnectionLost
	}
	return httpretry.Unclassified
}

// rejected reports whether the server reset the request's stream with
// H3_REQUEST_REJECTED.
func rejected(err error) bool {
	if e, ok := errors.AsType[*http3.Error](err); ok {
		return e.Remote && e.ErrorCode == http3.ErrCodeRequestRejected
	}
	e, ok := errors.AsType[*quic.StreamError](err)
	return ok && e.Remote && e.ErrorCode == quic.StreamErrorCode(http3.ErrCodeRequestRejected)
}

// lost reports whether err is a QUIC connection or stream failure: every
// connection error of quic-go wraps net.ErrClosed.
func lost(err error) bool {
	if _, ok := errors.AsType[*http3.Error](err); ok {
		return true
	}
	if _, ok := errors.AsType[*quic.StreamError](err); ok {
		return true
	}
	return errors.Is(err, net.ErrClosed)
}

// Unprocessed reports whether err, from Base.RoundTrip, proves that the
// server did not process the request, so that sending it again is safe
// whatever its method (if its body can be sent again): the stream was
// rejected with H3_REQUEST_REJECTED, or the request was never written
// (see Base.ClassifyError). It is for a retry.Judge of raw HTTP/3 calls;
// httpretry, given a Base, applies it itself. Of an error from a bare
// *http3.Transport it can tell only the rejected streams: whether a
// request was written is seen by a Base.
func Unprocessed(err error) bool {
	if err == nil {
		return false
	}
	switch classify(err) {
	case httpretry.Rejected, httpretry.NotSent:
		return true
	}
	return false
}

// notSentError is the error of a RoundTrip that failed before the
// request's HEADERS frame was written.
type notSentError struct{ err error }

func (e *notSentError) Error() string { return "h3retry: request not sent: " + e.err.Error() }
func (e *notSentError) Unwrap() error { return e.err }

// MaxConnsPerRoundTrip returns 2: one RoundTrip of an http3.Transport
// dials at most two QUIC connections, one for its request and one for its
// single resend (httpretry.ConnBounder), so httpretry need not count them.
func (b *Base) MaxConnsPerRoundTrip() int { return 2 }

// CloseIdleConnections closes the Transport's idle QUIC connections.
// httpretry.Transport.CloseIdleConnections and
// http.Client.CloseIdleConnections call it.
func (b *Base) CloseIdleConnections() { b.transport().CloseIdleConnections() }

// Close closes the Transport (Base's own, or the one it was given): its
// QUIC connections and its UDP socket. Neither can be used after it.
func (b *Base) Close() error { return b.transport().Close() }
