package httpretry

// Unprocessed reports whether err, from a RoundTripper, proves that the
// server did not process the request, so that sending it again is safe
// whatever its method (if its body can be sent again). It is for a
// retry.Judge of raw connections; the Transport applies it itself.
//
// It is true for:
//
//   - a connection that could not be made: refused, unreachable, a DNS
//     failure, a dial timeout (a *net.OpError whose Op is "dial", also
//     behind a proxy), a dial over DialLimit (ErrDialLimit), and a TLS
//     handshake that failed — nothing of the request was sent, though
//     retrying a TLS failure rarely helps;
//   - an HTTP/2 stream the server refused with REFUSED_STREAM (matched
//     through the As method of net/http's unexported stream error);
//   - an HTTP/2 stream past the last stream ID of the server's GOAWAY,
//     which net/http reports as "http2: Transport received Server's
//     graceful shutdown GOAWAY" (matched by its text: the error is not
//     exported).
//
// A request lost on a reused connection before any byte was written is
// resent by net/http itself (its unexported nothingWrittenError), which
// unwraps that error before returning it; what reaches the caller is the
// plain connection error, which cannot tell whether the server processed
// the request, and Unprocessed says false for it, as for a reset or a
// closed connection, a timeout, and every other error.
func Unprocessed(err error) bool {
	if err == nil {
		return false
	}
	switch kindOf(err, nil) {
	case kindUnsent, kindRefused, kindNoHost, kindTLS:
		return true
	}
	return false
}
