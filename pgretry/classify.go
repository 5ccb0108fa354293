package pgretry

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/neterr"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/verdict"
)

// The codes Code returns.
const (
	codeOpen        = "circuit_open"
	codePoolTimeout = "pool_timeout"
	codeMarkedInTx  = "marked_in_tx"
	codeCanceled    = "canceled"
	codeTimeout     = "attempt_timeout"
	codeNotSent     = "not_sent"
	codeUnknown     = "commit_unknown"
	codeUnreachable = "unreachable"
	codeShutdown    = "shutdown"
	codeTooMany     = "too_many_connections"
	codeSerial      = "serialization_failure"
	codeDeadlock    = "deadlock"
	codeStmtTimeout = "statement_timeout"
	codeAnswer      = "database_error"
	codeNoRows      = "no_rows"
	codeOther       = "error"
	codeTLS         = "tls"
	codeNoHost      = "no_host"
)

// Classify returns the verdict on an error from PostgreSQL through pgx or
// database/sql, for a statement marked safe to repeat: what a circuit
// breaker records and whether the runner may try again.
//
//	verdict    code                   errors
//	Success    ""                     nil
//	Failure    commit_unknown         ErrCommitUnknown: COMMIT sent, its answer lost; never retried
//	Neutral    circuit_open           the breaker refused the call (breaker.ErrOpen)
//	Neutral    pool_timeout           no connection came free in a full pool in time
//	Neutral    marked_in_tx           ErrMarkedInTx
//	Neutral    canceled               context.Canceled
//	Transient  attempt_timeout        context.DeadlineExceeded, a pgconn timeout
//	Transient  not_sent               a pooled connection found broken before a byte of the statement was written to it
//	Transient  unreachable            cannot connect, connection refused or reset, TLS, DNS, SQLSTATE class 08, driver.ErrBadConn
//	Transient  shutdown               SQLSTATE 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now
//	Transient  too_many_connections   SQLSTATE 53300
//	Retryable  serialization_failure  SQLSTATE 40001
//	Retryable  deadlock               SQLSTATE 40P01
//	Neutral    statement_timeout      SQLSTATE 57014
//	Neutral    database_error         any other answer from the server (unique violation, syntax error, …)
//	Neutral    no_rows                pgx.ErrNoRows, sql.ErrNoRows
//	Neutral    error                  anything else (a scan into the wrong type, …)
//
// Transient and Failure errors count against the breaker; Retryable and
// Neutral ones count nothing: a live database that answers is not
// failing.
//
// Classify sees only the error. Whether a statement that is not marked
// may run again depends on what pgretry saw of it, which the error does
// not carry: a DB or SQLDB retries an unmarked statement only when no
// byte of it was written to a connection (see Instrument), whatever its
// code. pgconn.SafeToRetry is not used: pgx reports some statements that
// were sent as safe to retry ("conn closed" after a read broke).
func Classify(err error) verdict.Verdict {
	v, _ := classify(err)
	return v
}

// Code returns the short label of err that Classify's table gives, such
// as "circuit_open" or "pool_timeout", for logs and metrics; "" for nil.
func Code(err error) string {
	_, c := classify(err)
	return c
}

func classify(err error) (verdict.Verdict, string) {
	if err == nil {
		return verdict.Success, ""
	}
	var pe *pgconn.PgError
	var ns *notSentError
	switch {
	case errors.Is(err, ErrCommitUnknown):
		return verdict.Failure, codeUnknown
	case errors.Is(err, breaker.ErrOpen):
		return verdict.Neutral, codeOpen
	case errors.Is(err, ErrPoolTimeout):
		return verdict.Neutral, codePoolTimeout
	case errors.Is(err, ErrMarkedInTx):
		return verdict.Neutral, codeMarkedInTx
	case errors.Is(err, context.Canceled):
		return verdict.Neutral, codeCanceled
	case errors.Is(err, context.DeadlineExceeded), pgconn.Timeout(err), neterr.IsTimeout(err):
		return verdict.Transient, codeTimeout
	case errors.As(err, &pe):
		return sqlState(pe.Code)
	case errors.Is(err, pgx.ErrNoRows), errors.Is(err, sql.ErrNoRows):
		return verdict.Neutral, codeNoRows
	case neterr.IsTLS(err):
		return verdict.Failure, codeTLS // a retry does not mend a certificate (docs/failures.md)
	case neterr.IsNoHost(err):
		return verdict.Failure, codeNoHost
	case unreachable(err):
		if errors.As(err, &ns) && ns.onConn {
			return verdict.Transient, codeNotSent
		}
		return verdict.Transient, codeUnreachable
	}
	return verdict.Neutral, codeOther
}

// sqlState classifies an error the server reported.
func sqlState(code string) (verdict.Verdict, string) {
	switch {
	case code == "40001":
		return verdict.Retryable, codeSerial
	case code == "40P01":
		return verdict.Retryable, codeDeadlock
	case code == "57P01", code == "57P02", code == "57P03":
		return verdict.Transient, codeShutdown
	case code == "53300":
		return verdict.Transient, codeTooMany
	case len(code) == 5 && code[:2] == "08":
		return verdict.Transient, codeUnreachable
	case code == "57014":
		return verdict.Neutral, codeStmtTimeout
	}
	return verdict.Neutral, codeAnswer
}

// unreachable reports whether err says the server could not be reached
// or the connection to it broke: a failed connect (refused, DNS, TLS,
// authentication timeouts), a network error, a connection cut mid-way,
// or one that database/sql's driver called bad.
func unreachable(err error) bool {
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, driver.ErrBadConn)
}

// judgeMarked is the runner's Judge for a statement marked with
// WithIdempotent: the verdict of Classify, and Code as the reason label.
func judgeMarked[T any](_ T, err error) retry.Judgement {
	if err == nil {
		return retry.Judgement{Verdict: verdict.Success}
	}
	v, code := classify(err)
	return retry.Judgement{Verdict: v, Reason: code}
}

// judgeUnmarked is the runner's Judge for a statement that is not
// marked: it is retried only when the attempt wrote no byte of it. Its
// label is Code's.
func judgeUnmarked[T any](_ T, err error) retry.Judgement {
	if err == nil {
		return retry.Judgement{Verdict: verdict.Success}
	}
	v, code := classify(err)
	if v.Retry() && !unsent(err) {
		v = settle(v)
	}
	return retry.Judgement{Verdict: v, Reason: code}
}

// judgeTx reruns a whole transaction on a serialization failure or a
// deadlock, and when the run wrote no byte of it. A commit whose answer
// was lost is a Failure: never rerun. Its label is Code's.
func judgeTx(_ struct{}, err error) retry.Judgement {
	if err == nil {
		return retry.Judgement{Verdict: verdict.Success}
	}
	v, code := classify(err)
	if v.Retry() && code != codeSerial && code != codeDeadlock && !unsent(err) {
		v = settle(v)
	}
	return retry.Judgement{Verdict: v, Reason: code}
}

// settle turns a verdict that would retry into the one that returns and
// counts the same way: Transient into Failure, Retryable into Neutral.
func settle(v verdict.Verdict) verdict.Verdict {
	if v == verdict.Transient {
		return verdict.Failure
	}
	return verdict.Neutral
}
