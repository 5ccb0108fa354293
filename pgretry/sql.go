package pgretry

import (
	"context"
	"database/sql"
	"errors"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/retry"
)

// SQLDB runs statements on a *sql.DB opened with pgx's database/sql
// driver (github.com/jackc/pgx/v5/stdlib) under the same rules as DB. Its
// methods mirror sql.DB's. A SQLDB is safe for concurrent use.
//
// SQLDB runs each statement on a *sql.Conn of its own, which database/sql
// does not retry: sql.DB's own methods run a statement again on another
// connection when the driver returns driver.ErrBadConn, which pgx's
// driver does for some errors that come after the statement was sent.
// SQLDB retries instead under its rules, and sees whether any byte of a
// statement was written when the *sql.DB's connection configuration went
// through Instrument.
type SQLDB struct {
	db *sql.DB
	core
}

// WrapSQL returns a SQLDB that runs statements on db. It fails if db is
// nil or c is invalid (see Config). The SQLDB's target is SQLTarget,
// since a *sql.DB does not say where it connects. The SQLDB does not own
// db: close it when done.
func WrapSQL(db *sql.DB, c Config) (*SQLDB, error) {
	if db == nil {
		return nil, errors.New("pgretry: nil *sql.DB")
	}
	k, err := c.build(SQLTarget)
	if err != nil {
		return nil, err
	}
	return &SQLDB{db: db, core: k}, nil
}

// DB returns the *sql.DB the SQLDB runs statements on.
func (s *SQLDB) DB() *sql.DB { return s.db }

// Breaker returns the SQLDB's circuit breaker, SQLTarget's in
// Config.Breaker, nil if Config.NoBreaker.
func (s *SQLDB) Breaker() *breaker.Breaker { return s.opts.Breaker }

// ExecContext runs query as sql.DB.ExecContext does, retried if ctx is
// marked with WithIdempotent, or if no byte of it was written to a
// connection (see Instrument).
func (s *SQLDB) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	res, err := retry.Do(ctx, s.opts, s.sched, judgeResult.of(ctx), nil, func(ctx context.Context) (sql.Result, error) {
		c, p, err := s.conn(ctx)
		if err != nil {
			return nil, err
		}
		defer c.Close()
		res, err := c.ExecContext(ctx, query, args...)
		return res, p.mark(err)
	})
	return res, unmark(err)
}

// QueryContext runs query as sql.DB.QueryContext does, retried like
// ExecContext. Only the errors QueryContext itself returns are retried;
// Config.Options.AttemptTimeout does not apply, since the rows outlive the
// attempt. Closing the rows returns their connection to the pool.
func (s *SQLDB) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	rows, err := retry.Do(ctx, s.queryOpts, s.sched, judgeSQL.of(ctx), nil, func(ctx context.Context) (*sql.Rows, error) {
		c, p, err := s.conn(ctx)
		if err != nil {
			return nil, err
		}
		rows, err := c.QueryContext(ctx, query, args...)
		if err != nil {
			c.Close()
			return nil, p.mark(err)
		}
		// The *sql.Conn goes back to the pool once the rows are closed:
		// its Close waits for them.
		go c.Close()
		return rows, nil
	})
	return rows, unmark(err)
}

// QueryRowContext returns the row that query selects; the statement runs
// when Scan is called, and Scan retries it like ExecContext.
func (s *SQLDB) QueryRowContext(ctx context.Context, query string, args ...any) SQLRow {
	return SQLRow{s: s, ctx: ctx, query: query, args: args}
}

// SQLRow is the row QueryRowContext selects.
type SQLRow struct {
	s     *SQLDB
	ctx   context.Context
	query string
	args  []any
}

// Scan runs the statement and reads its first row into dest, as
// sql.Row's Scan does: sql.ErrNoRows if it selects none.
func (r SQLRow) Scan(dest ...any) error {
	_, err := retry.Do(r.ctx, r.s.opts, r.s.sched, judgeNone.of(r.ctx), nil, func(ctx context.Context) (struct{}, error) {
		c, p, err := r.s.conn(ctx)
		if err != nil {
			return struct{}{}, err
		}
		defer c.Close()
		return struct{}{}, p.mark(c.QueryRowContext(ctx, r.query, r.args...).Scan(dest...))
	})
	return unmark(err)
}

// Tx is DB.Tx for database/sql: it runs fn in a transaction begun with
// opts and commits it, and reruns it whole after a serialization failure
// or a deadlock, or when no byte of it was written, rolling back first.
// Statements run through the SQLTx that fn receives are not retried one
// by one; a marked one fails with ErrMarkedInTx. A COMMIT whose answer
// never came back is not rerun: the error matches ErrCommitUnknown. Any
// other error means that the transaction did not commit.
func (s *SQLDB) Tx(ctx context.Context, opts *sql.TxOptions, fn func(*SQLTx) error) error {
	switch {
	case fn == nil:
		return errNilFn
	case IsIdempotent(ctx):
		return ErrMarkedInTx
	}
	_, err := retry.Do(ctx, s.opts, s.txSched, judgeTx, nil, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, s.runTx(ctx, opts, fn)
	})
	return unmark(err)
}

func (s *SQLDB) runTx(ctx context.Context, opts *sql.TxOptions, fn func(*SQLTx) error) error {
	c, p, err := s.conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close() // after the rollback
	t, err := c.BeginTx(ctx, opts)
	if err != nil {
		return p.mark(err)
	}
	// Rollback does nothing after a commit; it is bound by ctx (pgx's
	// driver rolls back with the context of BeginTx), and database/sql
	// rolls back by itself when ctx ends.
	defer t.Rollback()
	if err := fn(&SQLTx{tx: t}); err != nil {
		return err
	}
	// database/sql does not ask the driver to commit when ctx has ended
	// (it rolls back), nor when it returns ErrTxDone: the transaction did
	// not commit, whatever its rollback wrote meanwhile.
	done := ctx.Err() != nil
	p = p.again()
	err = t.Commit()
	if done || err == sql.ErrTxDone {
		return err
	}
	return p.commitErr(err)
}

// conn takes a connection from the pool of s.db, and the count of its
// bytes. Its error is marked as not sent. A *sql.Conn runs a statement
// once: sql.DB's own methods run it again on another connection when the
// driver says driver.ErrBadConn, which pgx's driver says for errors that
// pgconn.SafeToRetry accepts, some of which come after the statement was
// sent.
func (s *SQLDB) conn(ctx context.Context) (*sql.Conn, probe, error) {
	c, err := s.db.Conn(ctx)
	if err != nil {
		return nil, probe{}, notSent(s.acquireErr(err))
	}
	return c, s.probe(c), nil
}

// probe takes the count of c's connection, if it is pgx's.
func (s *SQLDB) probe(c *sql.Conn) probe {
	var p probe
	c.Raw(func(dc any) error {
		if pc, ok := dc.(*stdlib.Conn); ok {
			p = probeOf(pc.Conn())
		}
		return nil
	})
	return p
}

// SQLTx is the transaction SQLDB.Tx runs: a *sql.Tx that refuses
// statements marked with WithIdempotent.
type SQLTx struct{ tx *sql.Tx }

// Tx returns the *sql.Tx, for what SQLTx does not mirror. Statements run
// on it directly are not checked for WithIdempotent's mark.
func (t *SQLTx) Tx() *sql.Tx { return t.tx }

// ExecContext runs query in the transaction; ErrMarkedInTx if ctx is
// marked with WithIdempotent.
func (t *SQLTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if IsIdempotent(ctx) {
		return nil, ErrMarkedInTx
	}
	return t.tx.ExecContext(ctx, query, args...)
}

// QueryContext runs query in the transaction; ErrMarkedInTx if ctx is
// marked with WithIdempotent.
func (t *SQLTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if IsIdempotent(ctx) {
		return nil, ErrMarkedInTx
	}
	return t.tx.QueryContext(ctx, query, args...)
}

// QueryRowContext returns the row that query selects in the
// transaction; its Scan returns ErrMarkedInTx if ctx is marked with
// WithIdempotent.
func (t *SQLTx) QueryRowContext(ctx context.Context, query string, args ...any) TxRow {
	if IsIdempotent(ctx) {
		return TxRow{err: ErrMarkedInTx}
	}
	return TxRow{row: t.tx.QueryRowContext(ctx, query, args...)}
}

// TxRow is the row SQLTx.QueryRowContext selects.
type TxRow struct {
	row *sql.Row
	err error
}

// Scan reads the row into dest, as sql.Row's Scan does.
func (r TxRow) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	return r.row.Scan(dest...)
}

// acquireErr is DB.acquireErr for database/sql: a context deadline that
// ended a wait for a connection while all MaxOpenConns are in use is a
// pool_timeout.
func (s *SQLDB) acquireErr(err error) error {
	if err != context.DeadlineExceeded {
		return err
	}
	if st := s.db.Stats(); st.MaxOpenConnections > 0 && st.InUse >= st.MaxOpenConnections {
		return &poolTimeoutError{err: err}
	}
	return err
}
