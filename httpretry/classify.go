package httpretry

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/recur-go/recur/neterr"
	"github.com/recur-go/recur/verdict"
)

// judgeStatus returns the verdict on a response with status code code.
//
//	1xx, 2xx, 3xx        Success
//	408                  Transient if repeatable, else Failure
//	429                  Retryable if repeatable, else Neutral
//	500                  Transient if Retry500 and repeatable, else Failure
//	502, 503, 504        Transient if repeatable, else Failure
//	other 4xx and 5xx    Neutral
//
// 408, 500, 502, 503 and 504 count as failures of the target, and no
// other status does; a 429 is the target pushing back, not failing.
func (c *call) judgeStatus(code int) verdict.Verdict {
	switch {
	case code < 400:
		return verdict.Success
	case code == http.StatusTooManyRequests:
		if c.repeatable && c.rewindable {
			return verdict.Retryable
		}
		return verdict.Neutral
	case code == http.StatusInternalServerError:
		if !c.cfg.retry500 {
			return verdict.Failure
		}
		return c.transient()
	case code == http.StatusRequestTimeout, code == http.StatusBadGateway,
		code == http.StatusServiceUnavailable, code == http.StatusGatewayTimeout:
		return c.transient()
	}
	return verdict.Neutral
}

// transient is the verdict on a failure of the target that the request
// may have caused to be processed: retry it if it may be repeated.
func (c *call) transient() verdict.Verdict {
	if c.repeatable && c.rewindable {
		return verdict.Transient
	}
	return verdict.Failure
}

// label is an attempt's reason label, kept in a byte so that a request's
// state stays small; labels holds their text.
type label uint8

const (
	labelNone label = iota
	label408
	label429
	label500
	label502
	label503
	label504
	labelCanceled
	labelTimeout
	labelOther // the labels of the kinds follow, in kind order
)

var labels = [...]string{
	labelNone:                       "",
	label408:                        "http-408",
	label429:                        "http-429",
	label500:                        "http-500",
	label502:                        "http-502",
	label503:                        "http-503",
	label504:                        "http-504",
	labelCanceled:                   "canceled",
	labelTimeout:                    "attempt-timeout",
	labelOther + label(kindOther):   "error",
	labelOther + label(kindTLS):     "tls",
	labelOther + label(kindNoHost):  "no-host",
	labelOther + label(kindUnsent):  "dial",
	labelOther + label(kindRefused): "refused-stream",
	labelOther + label(kindBroken):  "connection",
}

// String returns the label's text, such as "http-503".
func (l label) String() string { return labels[l] }

// statusLabel returns the reason label of a response with status code
// code, for the statuses judgeStatus may retry.
func statusLabel(code int) label {
	switch code {
	case http.StatusRequestTimeout:
		return label408
	case http.StatusTooManyRequests:
		return label429
	case http.StatusInternalServerError:
		return label500
	case http.StatusBadGateway:
		return label502
	case http.StatusServiceUnavailable:
		return label503
	case http.StatusGatewayTimeout:
		return label504
	}
	return labelNone
}

// errorLabel returns the reason label of an attempt that failed with err
// and no response, whose kind is k.
func errorLabel(k kind, err error) label {
	if k == kindBroken && errors.Is(err, ErrAttemptTimeout) {
		return labelTimeout
	}
	return labelOther + label(k)
}

// judgeError returns the verdict on an attempt that failed with err and
// no response, and sets c.label. ctx is the request's context.
func (c *call) judgeError(ctx context.Context, err error) verdict.Verdict {
	if ctx.Err() != nil {
		c.label = labelCanceled
		return verdict.Neutral // the caller gave up; the target did nothing wrong
	}
	k := kindOf(err, c.cfg.classify)
	c.label = errorLabel(k, err)
	switch k {
	case kindTLS, kindNoHost:
		return verdict.Failure
	case kindUnsent:
		// It never reached the server: any method may be sent again.
		if c.rewindable {
			return verdict.Transient
		}
		return verdict.Failure
	case kindRefused:
		if c.rewindable {
			return verdict.Retryable
		}
		return verdict.Neutral
	case kindBroken:
		return c.transient()
	}
	return verdict.Neutral
}

// kind is a class of transport error.
type kind uint8

const (
	kindOther   kind = iota // not known to be the target's doing
	kindTLS                 // a TLS handshake or certificate failure: never retried
	kindNoHost              // DNS says the host does not exist
	kindUnsent              // the request never reached the server: dial failed
	kindRefused             // HTTP/2 REFUSED_STREAM, a Base's Rejected: the server did not process it
	kindBroken              // the connection failed or timed out; the server may have processed it
)

// kindOf classifies a transport error; cl, if not nil, is the Base's
// own classification of its errors, which comes after TLS and before
// every other rule. The order matters: a TLS error or a dial error is
// also a net.Error.
func kindOf(err error, cl ErrorClassifier) kind {
	if neterr.IsTLS(err) {
		return kindTLS
	}
	if cl != nil {
		if k, ok := classKind(cl.ClassifyError(err), err); ok {
			return k
		}
	}
	var op *net.OpError
	if find(err, func(e error) bool { op, _ = e.(*net.OpError); return op != nil && op.Op == "dial" }) {
		if neterr.IsNoHost(op) {
			return kindNoHost
		}
		return kindUnsent
	}
	if errors.Is(err, ErrDialLimit) {
		return kindUnsent // net/http sends a request again only where it was not processed
	}
	var se h2StreamError
	if errors.As(err, &se) && se.Code == errCodeRefusedStream {
		return kindRefused
	}
	if strings.Contains(err.Error(), goAwayUnprocessed) {
		return kindRefused // a stream past the GOAWAY's last stream ID
	}
	if find(err, isNetError) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNABORTED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, ErrAttemptTimeout) || neterr.IsTimeout(err) || brokenText(err) {
		return kindBroken
	}
	return kindOther
}

// find reports whether f holds for an error in err's tree, in the
// pre-order errors.As uses.
//
// A failed dial is a *net.OpError whose Op is "dial": connection refused,
// no route, a DNS failure, a dial timeout; no byte of the request was
// sent. Behind a proxy, net/http wraps it in an OpError whose Op is
// "proxyconnect", which is why the whole tree is searched rather than its
// first OpError.
func find(err error, f func(error) bool) bool {
	for err != nil {
		if f(err) {
			return true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if find(e, f) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}

// isNetError reports whether err is a net.Error other than a *url.Error,
// which implements the interface whatever it wraps.
func isNetError(err error) bool {
	if _, ok := err.(*url.Error); ok {
		return false
	}
	_, ok := err.(net.Error)
	return ok
}

// h2StreamError has the shape of net/http's unexported http2StreamError,
// whose As method fills in any struct with the same fields (net/http
// keeps it so for golang.org/x/net/http2.StreamError). It is how a
// refused stream is recognised without importing x/net.
type h2StreamError struct {
	StreamID uint32
	Code     uint32
	Cause    error
}

func (e h2StreamError) Error() string { return "http2 stream error" }

// errCodeRefusedStream is HTTP/2's REFUSED_STREAM (RFC 9113, section 7):
// the server did not process the stream, so any request may be sent again.
const errCodeRefusedStream = 0x7

// brokenTexts are errors that net/http returns when a connection fails but
// does not export: they are recognised by their text.
var brokenTexts = [...]string{
	"http: server closed idle connection",
	"http2: client conn is closed",
	"http2: client connection lost",
	"http2: server sent GOAWAY and closed the connection",
}

// goAwayUnprocessed is the text of the error net/http's HTTP/2 client
// gives a stream whose ID is above a GOAWAY's last stream ID: the server
// says it did not and will not process it (RFC 9113, section 6.8).
const goAwayUnprocessed = "http2: Transport received Server's graceful shutdown GOAWAY"

func brokenText(err error) bool {
	msg := err.Error()
	for _, t := range brokenTexts {
		if strings.Contains(msg, t) {
			return true
		}
	}
	return false
}

// methodQuery is the QUERY method (the IETF HTTPbis draft "The HTTP QUERY
// Method"): a GET with a body, safe and idempotent.
const methodQuery = "QUERY"

// repeatable reports whether req may be sent more than once: its method is
// idempotent (RFC 9110, section 9.2.2: GET, HEAD, OPTIONS, TRACE, PUT,
// DELETE; and QUERY, which is defined so), it has an Idempotency-Key (or X-Idempotency-Key) header, or its
// context was marked with WithIdempotent.
func repeatable(req *http.Request) bool {
	switch req.Method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace,
		http.MethodPut, http.MethodDelete, methodQuery:
		return true
	}
	if _, ok := req.Header["Idempotency-Key"]; ok {
		return true
	}
	if _, ok := req.Header["X-Idempotency-Key"]; ok {
		return true
	}
	return IsIdempotent(req.Context())
}

// rewindable reports whether req's body can be sent again: it has none,
// or GetBody makes a new one.
func rewindable(req *http.Request) bool {
	return req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
}

type idempotentKey struct{}

// WithIdempotent returns a copy of ctx that marks the requests made with
// it as safe to repeat, whatever their method: a POST that the server
// deduplicates by some means other than an Idempotency-Key header.
func WithIdempotent(ctx context.Context) context.Context {
	return context.WithValue(ctx, idempotentKey{}, true)
}

// IsIdempotent reports whether ctx was marked with WithIdempotent. It
// says nothing of a request's method or headers, which make most requests
// repeatable unmarked (see the package documentation); it is for code that
// sees only the context, such as an Observer, whose events carry the
// request's context, or a wrapping Base.
func IsIdempotent(ctx context.Context) bool {
	return ctx.Value(idempotentKey{}) != nil
}
