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
// context has ended.
const rollbackTimeout = 5 * time.Second

var errNilFn = errors.New("pgretry: nil transaction function")

// Tx runs fn in a transaction begun with opts and commits it. When the
// transaction fails with a serialization failure (SQLSTATE 40001) or a
// deadlock (40P01), or before anything of it was sent, Tx rolls it back
// and runs fn again in a new transaction, on Options.TxSchedule; any
// other error is returned after the rollback, unchanged. fn may therefore
// run more than once: it must have no effect outside the transaction,
// and return the errors of the statements it runs (wrapped or not).
//
// Statements run through the pgx.Tx that fn receives are never retried
// one by one; one marked with Safe fails with ErrMarkedInTx, and so does
// Tx itself when ctx is marked. A commit whose connection broke after it
// was sent is not rerun: whether it committed is unknown.
func (db *DB) Tx(ctx context.Context, opts pgx.TxOptions, fn func(pgx.Tx) error) error {
	switch {
	case fn == nil:
		return errNilFn
	case IsSafe(ctx):
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
	ptx, err := db.pool.BeginTx(ctx, opts)
	if err != nil {
		return db.acquireErr(err)
	}
	defer func() {
		// After a commit this does nothing. A failed rollback closes the
		// connection: nothing is left open.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
		defer cancel()
		ptx.Rollback(rctx)
	}()
	if err := fn(tx{ptx}); err != nil {
		return err
	}
	return ptx.Commit(ctx)
}

// tx is the pgx.Tx that a transaction function receives: it refuses
// statements marked with Safe.
type tx struct{ pgx.Tx }

// errRow is the pgx.Row of a refused QueryRow.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

func (t tx) Begin(ctx context.Context) (pgx.Tx, error) {
	if IsSafe(ctx) {
		return nil, ErrMarkedInTx
	}
	inner, err := t.Tx.Begin(ctx)
	if err != nil {
		return nil, err
	}
	return tx{inner}, nil
}

func (t tx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if IsSafe(ctx) {
		return pgconn.CommandTag{}, ErrMarkedInTx
	}
	return t.Tx.Exec(ctx, sql, args...)
}

func (t tx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if IsSafe(ctx) {
		return nil, ErrMarkedInTx
	}
	return t.Tx.Query(ctx, sql, args...)
}

func (t tx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if IsSafe(ctx) {
		return errRow{ErrMarkedInTx}
	}
	return t.Tx.QueryRow(ctx, sql, args...)
}

func (t tx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if IsSafe(ctx) {
		return pgx.FailedBatchResults(b, ErrMarkedInTx)
	}
	return t.Tx.SendBatch(ctx, b)
}

func (t tx) CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error) {
	if IsSafe(ctx) {
		return 0, ErrMarkedInTx
	}
	return t.Tx.CopyFrom(ctx, table, cols, src)
}

func (t tx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	if IsSafe(ctx) {
		return nil, ErrMarkedInTx
	}
	return t.Tx.Prepare(ctx, name, sql)
}
