package pgretry

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/recur-go/recur/retry"
)

// rollbackTimeout bounds the rollback of a failed run when the caller's
// context has no nearer deadline.
const rollbackTimeout = 5 * time.Second

var errNilFn = errors.New("pgretry: nil transaction function")

// Tx runs fn in a transaction begun with opts and commits it. When the
// transaction fails with a serialization failure (SQLSTATE 40001) or a
// deadlock (40P01), or before any byte of it was written to a connection,
// Tx rolls it back and runs fn again in a new transaction, on
// Config.TxPolicy; any other error is returned after the rollback,
// unchanged. fn may therefore run more than once: it must have no effect
// outside the transaction, return the errors of the statements it runs
// (wrapped or not), and leave the commit and the rollback to Tx.
//
// Statements run through the pgx.Tx that fn receives are never retried
// one by one; one marked with WithIdempotent fails with ErrMarkedInTx,
// and so does Tx itself when ctx is marked.
//
// A COMMIT whose answer never came back (the connection broke, or the
// context ended, after a byte of it was written) is never rerun: Tx
// returns an error that matches ErrCommitUnknown, since the transaction
// may have committed. Any other error means that it did not commit.
func (db *DB) Tx(ctx context.Context, opts pgx.TxOptions, fn func(pgx.Tx) error) error {
	switch {
	case fn == nil:
		return errNilFn
	case IsIdempotent(ctx):
		return ErrMarkedInTx
	}
	_, err := retry.Do(ctx, db.opts, db.txSched, judgeTx, nil, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, db.runTx(ctx, opts, fn)
	})
	return err
}

// runTx is one run of a transaction: begin, fn, commit. It rolls back
// whatever did not commit, fn's error or panic included.
func (db *DB) runTx(ctx context.Context, opts pgx.TxOptions, fn func(pgx.Tx) error) error {
	c, err := db.acquire(ctx)
	if err != nil {
		return err
	}
	defer c.Release() // after the rollback; a broken connection is closed, not pooled
	p := probeOf(c.Conn())
	ptx, err := c.BeginTx(ctx, opts)
	if err != nil {
		return p.mark(err)
	}
	defer rollback(ctx, ptx)
	if err := fn(tx{ptx}); err != nil {
		return err
	}
	p = p.again()
	return p.commitErr(ptx.Commit(ctx))
}

// rollback rolls back ptx, which does nothing after a commit. It is bound
// by ctx, so that it never holds the caller past its deadline: when ctx
// has ended, pgx closes the connection instead, and the server rolls
// back a transaction whose connection closed.
func rollback(ctx context.Context, ptx pgx.Tx) {
	rctx, cancel := context.WithTimeout(ctx, rollbackTimeout)
	defer cancel()
	ptx.Rollback(rctx)
}

// tx is the pgx.Tx that a transaction function receives: it refuses
// statements marked with WithIdempotent.
type tx struct{ pgx.Tx }

// errRow is the pgx.Row of a refused QueryRow.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

func (t tx) Begin(ctx context.Context) (pgx.Tx, error) {
	if IsIdempotent(ctx) {
		return nil, ErrMarkedInTx
	}
	inner, err := t.Tx.Begin(ctx)
	if err != nil {
		return nil, err
	}
	return tx{inner}, nil
}

func (t tx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if IsIdempotent(ctx) {
		return pgconn.CommandTag{}, ErrMarkedInTx
	}
	return t.Tx.Exec(ctx, sql, args...)
}

func (t tx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if IsIdempotent(ctx) {
		return nil, ErrMarkedInTx
	}
	return t.Tx.Query(ctx, sql, args...)
}

func (t tx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if IsIdempotent(ctx) {
		return errRow{ErrMarkedInTx}
	}
	return t.Tx.QueryRow(ctx, sql, args...)
}

func (t tx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if IsIdempotent(ctx) {
		return pgx.FailedBatchResults(b, ErrMarkedInTx)
	}
	return t.Tx.SendBatch(ctx, b)
}

func (t tx) CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error) {
	if IsIdempotent(ctx) {
		return 0, ErrMarkedInTx
	}
	return t.Tx.CopyFrom(ctx, table, cols, src)
}

func (t tx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	if IsIdempotent(ctx) {
		return nil, ErrMarkedInTx
	}
	return t.Tx.Prepare(ctx, name, sql)
}
