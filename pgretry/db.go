package pgretry

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/retry"
)

// DB runs statements on a pgxpool.Pool under the rules of the package:
// a circuit breaker per pool, retries for marked statements and for
// statements that were never sent, transactions rerun whole. Its methods
// mirror the pool's. A DB is safe for concurrent use.
type DB struct {
	pool *pgxpool.Pool
	core
}

// New returns a DB that runs statements on pool. It fails if pool is nil
// or the options are invalid (an invalid schedule, a negative timeout).
// The DB does not own pool: close the pool when done.
func New(pool *pgxpool.Pool, o Options) (*DB, error) {
	if pool == nil {
		return nil, errors.New("pgretry: nil pool")
	}
	c, err := o.build()
	if err != nil {
		return nil, err
	}
	if cc := pool.Config().ConnConfig; cc != nil {
		c.opts.Target = net.JoinHostPort(cc.Host, strconv.Itoa(int(cc.Port)))
		c.queryOpts.Target = c.opts.Target
	}
	return &DB{pool: pool, core: c}, nil
}

// Pool returns the pool the DB runs statements on.
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// Breaker returns the DB's circuit breaker, nil if Options.NoBreaker.
func (db *DB) Breaker() *breaker.Breaker { return db.opts.Breaker }

// judges are the runner's Judges for statements whose result is a T:
// for one marked with Safe, and for one that is not. They are built once,
// in the variables below, so that a call does not allocate a function
// value for its judge.
type judges[T any] struct{ marked, unmarked retry.Judge[T] }

// of returns the Judge for a statement run with ctx.
func (j *judges[T]) of(ctx context.Context) retry.Judge[T] {
	if IsSafe(ctx) {
		return j.marked
	}
	return j.unmarked
}

// The Judges of each kind of result.
var (
	judgeTag    = judges[pgconn.CommandTag]{judgeMarked[pgconn.CommandTag], judgeUnmarked[pgconn.CommandTag]}
	judgeRows   = judges[pgx.Rows]{judgeMarked[pgx.Rows], judgeUnmarked[pgx.Rows]}
	judgeNone   = judges[struct{}]{judgeMarked[struct{}], judgeUnmarked[struct{}]}
	judgeResult = judges[sql.Result]{judgeMarked[sql.Result], judgeUnmarked[sql.Result]}
	judgeSQL    = judges[*sql.Rows]{judgeMarked[*sql.Rows], judgeUnmarked[*sql.Rows]}
)

// Exec runs sql as pgxpool.Pool.Exec does, retried if ctx is marked with
// Safe or if it failed before it was sent.
func (db *DB) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return retry.Do(ctx, db.opts, db.sched, judgeTag.of(ctx), nil, func(ctx context.Context) (pgconn.CommandTag, error) {
		tag, err := db.pool.Exec(ctx, sql, args...)
		return tag, db.acquireErr(err)
	})
}

// Query runs sql as pgxpool.Pool.Query does, retried like Exec. Only the
// errors Query itself returns are retried: once the caller reads the
// rows, their errors are the caller's. Options.Retry.AttemptTimeout does
// not apply, since the rows outlive the attempt; bound the query with
// ctx's deadline.
func (db *DB) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return retry.Do(ctx, db.queryOpts, db.sched, judgeRows.of(ctx), nil, func(ctx context.Context) (pgx.Rows, error) {
		rows, err := db.pool.Query(ctx, sql, args...)
		return rows, db.acquireErr(err)
	})
}

// QueryRow returns the row that sql selects, as pgxpool.Pool.QueryRow
// does; the statement runs when Scan is called, and Scan retries it like
// Exec.
func (db *DB) QueryRow(ctx context.Context, sql string, args ...any) Row {
	return Row{db: db, ctx: ctx, sql: sql, args: args}
}

// Row is the row QueryRow selects. It is a pgx.Row.
type Row struct {
	db   *DB
	ctx  context.Context
	sql  string
	args []any
}

var _ pgx.Row = Row{}

// Scan runs the statement and reads its first row into dest, as
// pgx.Row's Scan does: pgx.ErrNoRows if it selects none. It retries the
// statement like Exec.
func (r Row) Scan(dest ...any) error {
	_, err := retry.Do(r.ctx, r.db.opts, r.db.sched, judgeNone.of(r.ctx), nil, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, r.db.acquireErr(r.db.pool.QueryRow(ctx, r.sql, r.args...).Scan(dest...))
	})
	return err
}

// acquireErr makes a context deadline that ended a wait for a connection
// of a full pool a pool_timeout. pgxpool returns the context's error
// itself only from Acquire: pgconn wraps the errors of its own waits.
func (db *DB) acquireErr(err error) error {
	if err != context.DeadlineExceeded {
		return err
	}
	if st := db.pool.Stat(); st.AcquiredConns() >= st.MaxConns() {
		return &poolTimeoutError{err: err}
	}
	return err // waiting for a new connection: the server is slow to accept
}
