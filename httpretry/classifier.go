package httpretry

import (
	"strconv"

	"github.com/recur-go/recur/neterr"
)

// ErrorClassifier is an optional interface of a Transport's Base: a Base
// whose protocol fails in ways that httpretry cannot see from outside
// says, for each error its RoundTrip returns, what that error proves about
// the request. Module h3retry's Base implements it for HTTP/3, whose
// H3_REQUEST_REJECTED streams and requests left unsent by a GOAWAY are
// quic-go's types, not net/http's.
//
// The Transport asks it about every error of an attempt that came back
// without a response, unless the request's context had ended (the caller
// gave up: never retried) or the error is a TLS handshake or certificate
// failure (never retried, whatever the Base says). Whatever else it
// answers, other than Unclassified, replaces httpretry's own rules for
// that error; Unclassified leaves them to decide. The error it is given
// is the one the Base returned, possibly wrapped by the Transport (as an
// attempt that Options.AttemptTimeout cut short, with ErrAttemptTimeout),
// so ClassifyError should look through it with errors.As and errors.Is.
//
// The Transport looks for the interface on the Base it is given: a Base
// that wraps an ErrorClassifier must implement it too, or its errors are
// judged by httpretry's rules alone. ClassifyError is called on the
// request's path and concurrently: it should be quick, and it must be
// safe for concurrent use.
type ErrorClassifier interface {
	ClassifyError(err error) ErrorClass
}

// ErrorClass is what an error of a Base proves about its request (see
// ErrorClassifier). Each class is judged as httpretry judges the same
// failure over HTTP/1 and HTTP/2, and carries that failure's reason label
// to the Observer: the set of labels does not grow.
type ErrorClass uint8

const (
	// Unclassified: the Base knows nothing more than the error says;
	// httpretry's own rules judge it.
	Unclassified ErrorClass = iota

	// NotSent: no byte of the request reached the server (its connection
	// could not be made, or could not take the request before any of it
	// was written), so it was not processed. Judged as a failed dial: sent
	// again whatever its method, if its body can be sent again, and
	// counted against the target (label "dial"); if DNS says the host
	// does not exist, not retried (label "no-host").
	NotSent

	// Rejected: the server received the request and declined it without
	// processing it, as HTTP/2's REFUSED_STREAM and HTTP/3's
	// H3_REQUEST_REJECTED say. Judged as a refused stream: sent again
	// whatever its method, if its body can be sent again, and not counted
	// against the target, which is pushing back rather than failing
	// (verdict.Retryable; label "refused-stream").
	Rejected

	// ConnectionLost: the connection failed after the request was sent,
	// so the server may have processed it. Judged as a reset connection:
	// sent again only if the request may be repeated, and counted against
	// the target (label "connection").
	ConnectionLost
)

var classNames = [...]string{
	Unclassified:   "Unclassified",
	NotSent:        "NotSent",
	Rejected:       "Rejected",
	ConnectionLost: "ConnectionLost",
}

// String returns the class's name, such as "Rejected".
func (c ErrorClass) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "ErrorClass(" + strconv.Itoa(int(c)) + ")"
}

// classKind is the kind httpretry judges an error of class c as; ok is
// false for Unclassified, and for a class this version does not know.
func classKind(c ErrorClass, err error) (k kind, ok bool) {
	switch c {
	case NotSent:
		if neterr.IsNoHost(err) {
			return kindNoHost, true
		}
		return kindUnsent, true
	case Rejected:
		return kindRefused, true
	case ConnectionLost:
		return kindBroken, true
	}
	return kindOther, false
}
