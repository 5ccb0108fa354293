// Package neterr tells apart the transport errors that every adapter of
// recur judges the same way, whatever its driver: a TLS handshake or
// certificate failure, a host that DNS says does not exist, and a
// timeout. They are the rows of docs/failures.md that no driver's own
// classification settles alike, so that one rule holds in every adapter:
//
//   - IsTLS and IsNoHost: returned, not retried, and counted against the
//     target's breaker. Neither passes with a retry (the certificate, the
//     name, or the server's TLS setup must change), and the target is
//     unusable meanwhile.
//   - IsTimeout: retried if the call may be repeated, and counted against
//     the target: it was too slow to answer.
package neterr

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
)

// IsTLS reports whether err is a failed TLS handshake: a certificate that
// does not verify (an unknown authority, a name it does not cover, an
// expired or invalid one), an alert from the peer, or a peer that does not
// speak TLS.
func IsTLS(err error) bool {
	if err == nil {
		return false
	}
	if _, ok := errors.AsType[*tls.CertificateVerificationError](err); ok {
		return true
	}
	if _, ok := errors.AsType[x509.UnknownAuthorityError](err); ok {
		return true
	}
	if _, ok := errors.AsType[x509.HostnameError](err); ok {
		return true
	}
	if _, ok := errors.AsType[x509.CertificateInvalidError](err); ok {
		return true
	}
	if _, ok := errors.AsType[tls.RecordHeaderError](err); ok {
		return true
	}
	if _, ok := errors.AsType[tls.AlertError](err); ok {
		return true
	}
	op, ok := errors.AsType[*net.OpError](err)
	return ok && op.Op == "remote error" // a TLS alert from the peer
}

// IsNoHost reports whether err says that DNS has no such host: a
// *net.DNSError whose IsNotFound is set. A temporary DNS failure is not
// one.
func IsNoHost(err error) bool {
	dns, ok := errors.AsType[*net.DNSError](err)
	return ok && dns.IsNotFound
}

// IsTimeout reports whether an error in err's chain has a Timeout method
// that returns true: a net.Error timeout, os.ErrDeadlineExceeded, or a
// driver's or proxy's own error with only that method (go-redis treats
// one as a network error too). None of the three allocates.
func IsTimeout(err error) bool {
	t, ok := errors.AsType[interface {
		error
		Timeout() bool
	}](err)
	return ok && t.Timeout()
}
