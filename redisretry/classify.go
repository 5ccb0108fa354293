package redisretry

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/neterr"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/verdict"
	"github.com/redis/go-redis/v9"
)

// Classify returns the verdict.Verdict of one command's outcome, for the
// retry runner and the client's breaker:
//
//	nil, redis.Nil                           Success    (the server answered)
//	connection refused, reset or closed,     Transient  (retried if marked;
//	a timeout (AttemptTimeout's included),               counts against the server)
//	LOADING, MASTERDOWN,
//	CLUSTERDOWN, TRYAGAIN, READONLY (a
//	failover made this node a replica),
//	NOREPLICAS, ERR max number of
//	clients reached (go-redis retries all three)
//	WRONGTYPE, ERR (syntax, arity), script   Neutral    (returned; the caller's
//	errors, NOSCRIPT, any other server reply             mistake, not the server's)
//	the caller's cancellation or deadline,   Neutral    (returned; says nothing
//	go-redis's pool-acquire timeout                      of the server)
//	a TLS or certificate failure, no such    Failure    (returned; counts against)
//	host, anything else (a closed client,
//	a protocol error)
//
// docs/failures.md has the same rows for every adapter.
//
// A breaker refusal (breaker.ErrOpen) is Neutral. Code names the row.
func Classify(err error) verdict.Verdict {
	return verdictOf(Code(err))
}

// verdictOf returns Classify's verdict on an error whose Code is code.
func verdictOf(code string) verdict.Verdict {
	switch code {
	case CodeOK, CodeNil:
		return verdict.Success
	case CodeRefused, CodeReset, CodeClosed, CodeTimeout, CodeMaxClients, "LOADING", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "READONLY", "NOREPLICAS":
		return verdict.Transient
	case CodeOther, CodeClientClosed, CodeTLS, CodeNoHost:
		return verdict.Failure
	}
	return verdict.Neutral
}

// The codes Code returns that are not a server's error prefix.
const (
	CodeOK           = "ok"            // no error
	CodeNil          = "nil"           // redis.Nil: no such key
	CodeRefused      = "refused"       // connection refused
	CodeReset        = "reset"         // connection reset or broken pipe
	CodeClosed       = "closed"        // the server closed the connection (EOF)
	CodeTimeout      = "timeout"       // a read, write or dial timeout
	CodePoolTimeout  = "pool_timeout"  // redis.ErrPoolTimeout: no connection came free in the client's pool
	CodeCanceled     = "canceled"      // the caller's context ended
	CodeClientClosed = "client-closed" // redis.ErrClosed: the client was closed
	CodeOpen         = "open"          // the client's breaker refused the command
	CodeOther        = "other"         // none of the above
	CodeTLS          = "tls"           // a TLS handshake or certificate failure
	CodeNoHost       = "no-host"       // DNS has no such host
	CodeMaxClients   = "max-clients"   // the server's "ERR max number of clients reached"
)

// Code labels err for logs and metrics: one of the Code constants, or the
// first word of a server error reply ("LOADING", "WRONGTYPE", "ERR",
// "NOSCRIPT", ...). It never allocates.
func Code(err error) string {
	if err == nil {
		return CodeOK
	}
	if errors.Is(err, redis.Nil) {
		return CodeNil
	}
	if _, ok := errors.AsType[*AttemptTimedOut](err); ok {
		return CodeTimeout
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		// A dial timeout wraps DeadlineExceeded too: it is the server's.
		if op, ok := errors.AsType[*net.OpError](err); ok && op.Op == "dial" {
			return CodeTimeout
		}
		return CodeCanceled
	}
	if errors.Is(err, breaker.ErrOpen) {
		return CodeOpen
	}
	if re, ok := errors.AsType[redis.Error](err); ok {
		msg := re.Error()
		if strings.HasPrefix(msg, "ERR max number of clients reached") {
			return CodeMaxClients // the server is full: overloaded, not the caller's mistake
		}
		if i := strings.IndexByte(msg, ' '); i > 0 {
			msg = msg[:i]
		}
		return msg
	}
	switch {
	case errors.Is(err, redis.ErrClosed):
		return CodeClientClosed
	case neterr.IsTLS(err):
		return CodeTLS
	case neterr.IsNoHost(err):
		return CodeNoHost
	case errors.Is(err, redis.ErrPoolTimeout):
		// Every connection of the client's own pool stayed busy: local
		// overload, not a failing server (pgretry's pool_timeout).
		return CodePoolTimeout
	case errors.Is(err, syscall.ECONNREFUSED):
		return CodeRefused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED):
		return CodeReset
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return CodeClosed
	}
	if neterr.IsTimeout(err) {
		return CodeTimeout // a net.Error's, or any error's with only a Timeout method, as go-redis judges it
	}
	if _, ok := errors.AsType[*net.OpError](err); ok {
		return CodeReset
	}
	return CodeOther
}

// judge is the runner's Judge: Classify's verdict, and a reason label of
// the bounded set that Config.Options lists. A nil error and
// redis.Nil are a Success, with no label.
func judge(_ struct{}, err error) retry.Judgement {
	if err == nil {
		return retry.Judgement{Verdict: verdict.Success}
	}
	code := Code(err)
	return retry.Judgement{Verdict: verdictOf(code), Reason: label(code, err)}
}

// label returns the reason label of err, whose Code is code: Code's
// classes folded into a bounded set, since an error reply's prefix may be
// anything a script returns.
func label(code string, err error) string {
	switch code {
	case CodeOK, CodeNil:
		return ""
	case CodeRefused:
		return "dial"
	case CodeReset, CodeClosed, CodeTimeout:
		if op, ok := errors.AsType[*net.OpError](err); ok && op.Op == "dial" {
			return "dial" // the command never reached the server
		}
		if code == CodeTimeout {
			return "timeout"
		}
		return "connection"
	case CodeCanceled:
		return "canceled"
	case CodePoolTimeout:
		return "pool_timeout"
	case "LOADING":
		return "loading"
	case "MASTERDOWN":
		return "masterdown"
	case "CLUSTERDOWN":
		return "clusterdown"
	case "TRYAGAIN":
		return "tryagain"
	case "BUSY":
		return "busy"
	case "READONLY":
		return "readonly"
	}
	return "error"
}
