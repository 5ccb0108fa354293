package mongorecur

import (
	"context"
	"errors"
	"io"
	"net"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/neterr"
	"github.com/recur-go/recur/verdict"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"
)

// The codes Code returns.
const (
	codeOpen             = "circuit_open"
	codeCanceled         = "canceled"
	codePoolTimeout      = "pool_timeout"
	codeSelection        = "server_selection"
	codeDisconnected     = "client_disconnected"
	codeNoDocuments      = "no_documents"
	codeNotPrimary       = "not_primary"
	codeRecovering       = "node_recovering"
	codeUnreachable      = "unreachable"
	codeOverloaded       = "overloaded"
	codeNetwork          = "network"
	codeDeadlineTooShort = "deadline_too_short"
	codeMaxTime          = "max_time_expired"
	codeTimeout          = "timeout"
	codeDuplicateKey     = "duplicate_key"
	codeServer           = "server_error"
	codeOther            = "error"
	codeTLS              = "tls"
	codeNoHost           = "no_host"
)

// The server's error codes that say the node cannot serve the command now
// (the SDAM specification's "not primary" and "node is recovering"
// errors), and those a mongos reports for a shard it cannot reach.
var (
	notPrimaryCodes = []int{
		10107, // NotWritablePrimary
		13435, // NotPrimaryNoSecondaryOk
		10058, // LegacyNotPrimary
	}
	recoveringCodes = []int{
		11600, // InterruptedAtShutdown
		11602, // InterruptedDueToReplStateChange
		13436, // NotPrimaryOrSecondary
		189,   // PrimarySteppedDown
		91,    // ShutdownInProgress
	}
	unreachableCodes = []int{
		6,    // HostUnreachable
		7,    // HostNotFound
		89,   // NetworkTimeout
		9001, // SocketException
	}
)

// Classify returns the verdict on an error from an operation of the
// MongoDB Go driver (v2): what the circuit breaker records. Do and Call
// use it, with one exception for the caller's own deadline (see Do).
//
//	verdict    code                 errors
//	Success    ""                   nil
//	Success    no_documents         mongo.ErrNoDocuments: the server answered
//	Neutral    circuit_open         the breaker refused the call (breaker.ErrOpen)
//	Neutral    canceled             context.Canceled: the caller gave up
//	Neutral    pool_timeout         no pooled connection came free in time (topology.WaitQueueTimeoutError)
//	Transient  server_selection     no suitable server was found in time (topology.ServerSelectionError)
//	Neutral    client_disconnected  mongo.ErrClientDisconnected: the client was closed
//	Transient  not_primary          codes 10107, 13435, 10058 (the node is not a writable primary)
//	Transient  node_recovering      codes 11600, 11602, 13436, 189, 91 (shutting down, stepping down, recovering)
//	Transient  unreachable          codes 6, 7, 89, 9001 (a mongos could not reach a shard)
//	Transient  overloaded           the SystemOverloadedError label
//	Transient  network              the NetworkError label, a net.Error, a connection cut (io.EOF)
//	Neutral    deadline_too_short   not sent: the deadline would pass first (driver.ErrDeadlineWouldBeExceeded)
//	Neutral    max_time_expired     code 50 MaxTimeMSExpired: the server answered that the time limit passed
//	Transient  timeout              context.DeadlineExceeded, a socket or a client Timeout
//	Neutral    duplicate_key        E11000 and the other duplicate-key codes (mongo.IsDuplicateKeyError)
//	Neutral    server_error         any other error the server reported (a bad query, a validation failure, …)
//	Neutral    error                anything else (a document that does not encode, your own error, …)
//
// The rows are tried in this order, so a deadline that ended a server
// selection is server_selection, one that ended a pool checkout is
// pool_timeout, and a read timeout the driver labels NetworkError is
// network. Transient errors count against the breaker; Neutral ones count
// nothing, since a live server that answers is not failing, and neither is
// a pool that is too small for the load; Success counts for the server.
func Classify(err error) verdict.Verdict {
	v, _ := classify(err)
	return v
}

// Code returns the short label of err that Classify's table gives, such
// as "server_selection" or "duplicate_key", for logs and metrics: one of a
// bounded set, never the error's text. It returns "" for nil.
func Code(err error) string {
	_, c := classify(err)
	return c
}

func classify(err error) (verdict.Verdict, string) {
	if err == nil {
		return verdict.Success, ""
	}
	var (
		se mongo.ServerError
		le mongo.LabeledError
		ne net.Error
	)
	switch {
	case errors.Is(err, breaker.ErrOpen):
		return verdict.Neutral, codeOpen
	case errors.Is(err, context.Canceled):
		return verdict.Neutral, codeCanceled
	case errors.As(err, new(topology.WaitQueueTimeoutError)):
		return verdict.Neutral, codePoolTimeout
	case errors.As(err, new(topology.ServerSelectionError)):
		return verdict.Transient, codeSelection
	case errors.Is(err, mongo.ErrClientDisconnected):
		return verdict.Neutral, codeDisconnected
	case errors.Is(err, mongo.ErrNoDocuments):
		return verdict.Success, codeNoDocuments
	case errors.As(err, &se) && anyCode(se, notPrimaryCodes):
		return verdict.Transient, codeNotPrimary
	case errors.As(err, &se) && anyCode(se, recoveringCodes):
		return verdict.Transient, codeRecovering
	case errors.As(err, &se) && anyCode(se, unreachableCodes):
		return verdict.Transient, codeUnreachable
	case errors.As(err, &le) && le.HasErrorLabel(driver.ErrSystemOverloadedError):
		return verdict.Transient, codeOverloaded
	case neterr.IsTLS(err):
		return verdict.Failure, codeTLS // a retry does not mend a certificate (docs/failures.md)
	case neterr.IsNoHost(err):
		return verdict.Failure, codeNoHost
	case mongo.IsNetworkError(err):
		return verdict.Transient, codeNetwork
	case errors.Is(err, driver.ErrDeadlineWouldBeExceeded):
		return verdict.Neutral, codeDeadlineTooShort
	case errors.As(err, &se) && se.HasErrorCode(50):
		return verdict.Neutral, codeMaxTime
	case errors.Is(err, context.DeadlineExceeded), mongo.IsTimeout(err), neterr.IsTimeout(err):
		return verdict.Transient, codeTimeout
	case errors.As(err, &ne), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return verdict.Transient, codeNetwork
	case mongo.IsDuplicateKeyError(err):
		return verdict.Neutral, codeDuplicateKey
	case errors.As(err, &se):
		return verdict.Neutral, codeServer
	}
	return verdict.Neutral, codeOther
}

// anyCode reports whether se carries one of codes, at the top level or in
// a write or write-concern error.
func anyCode(se mongo.ServerError, codes []int) bool {
	for _, c := range codes {
		if se.HasErrorCode(c) {
			return true
		}
	}
	return false
}
