package pgretry

import (
	"context"
	"errors"
	"net"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Instrument makes the connections that cfg opens countable by pgretry:
// it wraps cfg.DialFunc so that every connection counts the bytes written
// to it. A DB or SQLDB whose connections come from an instrumented
// configuration knows, for each statement, whether any byte of it was
// written to the connection, and retries an unmarked statement only when
// none was: a statement that never left the client cannot have run.
//
// Call it on the configuration before the pool or the *sql.DB is made:
//
//	cfg, err := pgxpool.ParseConfig(dsn)
//	...
//	pgretry.Instrument(cfg.ConnConfig)
//	pool, err := pgxpool.NewWithConfig(ctx, cfg)
//
// and for database/sql, pgretry.Instrument(connConfig) before
// stdlib.OpenDB(*connConfig). Without it a DB still never runs an
// unmarked statement twice, but it retries one only when it failed before
// a connection was had (the dial was refused, the server refused the
// connection): a statement that failed on a connection may have been sent.
//
// The count is taken below TLS, on the connection DialFunc returns, so a
// TLS record cut short counts as written. Instrument keeps cfg's own
// DialFunc, if any, and calls it to dial.
func Instrument(cfg *pgx.ConnConfig) {
	dial := cfg.DialFunc
	if dial == nil {
		var d net.Dialer
		dial = d.DialContext
	}
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &wire{Conn: c}, nil
	}
}

// wire is a connection that counts the bytes written to it.
type wire struct {
	net.Conn
	written atomic.Int64
}

// terminate is the whole of pgx's Terminate message, which it writes on
// its own as it closes a connection: it does not count as a statement's
// bytes.
var terminate = [5]byte{'X', 0, 0, 0, 4}

func (w *wire) Write(p []byte) (int, error) {
	n, err := w.Conn.Write(p)
	if n > 0 && (len(p) != len(terminate) || [5]byte(p) != terminate) {
		w.written.Add(int64(n))
	}
	return n, err
}

// NetConn returns the connection under the count, as tls.Conn's does.
func (w *wire) NetConn() net.Conn { return w.Conn }

// wireOf finds the counting connection under c, through TLS and any
// other layer that has a NetConn method; nil if there is none.
func wireOf(c net.Conn) *wire {
	for c != nil {
		switch x := c.(type) {
		case *wire:
			return x
		case interface{ NetConn() net.Conn }:
			c = x.NetConn()
		default:
			return nil
		}
	}
	return nil
}

// probe is the count of a connection when a statement began.
type probe struct {
	w *wire
	n int64
}

// probeOf takes the count of c's connection.
func probeOf(c *pgx.Conn) probe {
	w := wireOf(c.PgConn().Conn())
	if w == nil {
		return probe{}
	}
	return probe{w: w, n: w.written.Load()}
}

// again takes the count of p's connection anew.
func (p probe) again() probe {
	if p.w == nil {
		return p
	}
	return probe{w: p.w, n: p.w.written.Load()}
}

// wrote reports whether any byte may have been written since p was
// taken: true when the connection is not counted.
func (p probe) wrote() bool {
	return p.w == nil || p.w.written.Load() != p.n
}

// mark returns err marked as not sent when no byte was written since p
// was taken, err itself otherwise.
func (p probe) mark(err error) error {
	if err == nil || p.wrote() {
		return err
	}
	return &notSentError{err: err, onConn: true}
}

// notSentError marks the error of an attempt that wrote no byte of its
// statement: running it again cannot run it twice. The judges look for it
// at the top of an attempt's error only, never inside, so that a mark
// from another call (a statement that a transaction function ran outside
// its transaction) cannot make this one run again. It is transparent:
// its text is the error's, and Unwrap returns it.
type notSentError struct {
	err error
	// onConn says that the statement had a connection: it failed on a
	// connection found broken before a byte was written, rather than
	// while a connection was being had.
	onConn bool
}

func (e *notSentError) Error() string { return e.err.Error() }
func (e *notSentError) Unwrap() error { return e.err }

// notSent marks the error of an attempt that had no connection yet.
func notSent(err error) error {
	if err == nil {
		return nil
	}
	return &notSentError{err: err}
}

// unsent reports whether an attempt's error is marked as not sent.
func unsent(err error) bool {
	_, ok := err.(*notSentError)
	return ok
}

// unmark returns err without the mark at its top, for the caller.
func unmark(err error) error {
	if e, ok := err.(*notSentError); ok {
		return e.err
	}
	return err
}

// ErrCommitUnknown is matched (errors.Is) by the error of a transaction
// whose COMMIT may have reached the server but whose answer never came
// back: the connection broke, or the context ended, after a byte of the
// COMMIT was written. The transaction may have committed or not; pgretry
// does not run it again. The error wraps the one the driver returned.
//
// Every other error from DB.Tx or SQLDB.Tx means that the transaction did
// not commit.
var ErrCommitUnknown = errors.New("pgretry: the outcome of COMMIT is unknown: the connection broke after it was sent, before its answer came back")

// commitUnknownError is the error of a commit whose answer was lost.
type commitUnknownError struct{ err error }

func (e *commitUnknownError) Error() string {
	return ErrCommitUnknown.Error() + ": " + e.err.Error()
}

func (e *commitUnknownError) Unwrap() []error { return []error{ErrCommitUnknown, e.err} }

// commitErr is the error of a COMMIT that failed with err, p having been
// taken just before it: ErrCommitUnknown when a byte of it was written
// and the server did not answer.
func (p probe) commitErr(err error) error {
	if err == nil || !p.wrote() || answered(err) {
		return err
	}
	return &commitUnknownError{err: err}
}

// answered reports whether err is the server's answer to the COMMIT, so
// that the outcome is known: an ERROR, after which the transaction is
// rolled back, or pgx's ErrTxCommitRollback. A FATAL or PANIC error is
// the end of the session, which may come after the commit was made and
// before its answer was sent: not an answer.
func answered(err error) bool {
	if errors.Is(err, pgx.ErrTxCommitRollback) {
		return true
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	sev := pe.SeverityUnlocalized
	if sev == "" {
		sev = pe.Severity
	}
	return sev != "FATAL" && sev != "PANIC"
}
