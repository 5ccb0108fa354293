// Package h3retry is httpretry over HTTP/3: an httpretry.Transport whose
// attempts go through quic-go's http3.Transport, with the requests that
// HTTP/3 proves unprocessed sent again whatever their method.
//
//	h3 := &http3.Transport{TLSClientConfig: tlsConf}
//	defer h3.Close()
//	client, err := h3retry.NewClient(h3, "fulljitter(100ms, 2s) & times(3)")
//	...
//	resp, err := client.Post("https://api.example.com/orders", "application/json", body)
//
// Every rule of httpretry holds as it is (docs/http.md): what may be
// repeated (an idempotent method, an Idempotency-Key, WithIdempotent, a
// body that can be sent again), Retry-After, the caller's deadline and
// Options.AttemptTimeout, a breaker and a retry budget per target
// (scheme://host:port; gRFC A6's token bucket by default), and the
// Observer's events and reason labels. What h3retry adds is the
// knowledge of quic-go's errors, through httpretry's ErrorClassifier,
// which its Base implements:
//
//   - a stream the server reset with H3_REQUEST_REJECTED (RFC 9114,
//     section 4.1.1: the request was not processed; a server in graceful
//     shutdown rejects so every stream at or past its GOAWAY's stream ID)
//     is sent again whatever its method, as httpretry sends an HTTP/2
//     REFUSED_STREAM again: not counted against the target, label
//     "refused-stream";
//   - a request that failed before its HEADERS frame was written (the
//     QUIC connection could not be made, or closed or went away after a
//     GOAWAY first) is sent again whatever its method, as after a failed
//     dial: counted against the target, label "dial";
//   - a QUIC connection or stream that failed after the request was
//     written (an application or transport close, an idle timeout, a
//     stateless reset, another stream error) is a broken connection: sent
//     again only if the request may be repeated, label "connection".
//
// quic-go's http3.Transport already sends a request once more itself,
// on a new connection, when its first stream was rejected or could not
// be opened; h3retry adds no resend of its own to that, and each attempt
// of httpretry is one call of http3.Transport.RoundTrip, so one attempt
// opens at most two QUIC connections. See docs/http3.md.
package h3retry
