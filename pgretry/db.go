package pgretry

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/retry"
)

// DB runs statements on a pgxpool.Pool under the rules of the package:
// a circuit breaker per target, retries for marked statements and for
// statements that were never sent, transactions rerun whole. Its methods
// mirror the pool's. A DB is safe for concurrent use.
//
// A DB takes each statement's connection from the pool itself, so that it
// can see whether the statement had a connection and, on a pool whose
// configuration went through Instrument, whether any byte of it was
// written to the connection.
type DB struct {
	pool *pgxpool.Pool
	core
}

// New returns a DB that runs statements on pool. It fails if pool is nil
// or c is invalid (an invalid policy, a negative timeout; see Config).
// The DB's target is the host:port of the pool's connection
// configuration. The DB does not own pool: close the pool when done. Make
// the pool from a configuration passed through Instrument, so that the DB
// can retry an unmarked statement that failed on a connection before a
// byte of it was written.
func New(pool *pgxpool.Pool, c Config) (*DB, error) {
	if pool == nil {
		return nil, errors.New("pgretry: nil pool")
	}
	cc := pool.Config().ConnConfig // always set: pgxpool requires ParseConfig's
	k, err := c.build(net.JoinHostPort(cc.Host, strconv.Itoa(int(cc.Port))))
	if err != nil {
		return nil, err
	}
	return &DB{pool: pool, core: k}, nil
}

// Pool returns the pool the DB runs statements on.
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// Breaker returns the circuit breaker of the DB's target, nil if
// Config.NoBreaker.
func (db *DB) Breaker() *breaker.Breaker { return db.opts.Breaker }

// judges are the runner's Judges for statements whose result is a T:
// for one marked with WithIdempotent, and for one that is not. They are
// built once, in the variables below, so that a call does not allocate a
// function value for its judge.
type judges[T any] struct{ marked, unmarked retry.Judge[T] }

// of returns the Judge for a statement run with ctx.
func (j *judges[T]) of(ctx context.Context) retry.Judge[T] {
	if IsIdempotent(ctx) {
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
// WithIdempotent, or if no byte of it was written to a connection (see
// Instrument).
func (db *DB) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	tag, err := retry.Do(ctx, db.opts, db.sched, judgeTag.of(ctx), nil, func(ctx context.Context) (pgconn.CommandTag, error) {
		c, err := db.acquire(ctx)
		if err != nil {
			return pgconn.CommandTag{}, err
		}
		defer c.Release()
		p := probeOf(c.Conn())
		tag, err := c.Exec(ctx, sql, args...)
		return tag, p.mark(err)
	})
	return tag, unmark(err)
}

// Query runs sql as pgxpool.Pool.Query does, retried like Exec. It reads
// the first row before it returns, as pgx's database/sql driver does, so
// that the statement's own failure (a broken connection, an error from
// the server) comes back from Query and is retried like Exec's; once the
// caller reads further, the rows' errors are the caller's.
// Config.Options.AttemptTimeout does not apply, since the rows outlive the
// attempt; bound the query with ctx's deadline. Closing the rows, or
// reading them to the end, returns the connection to the pool.
func (db *DB) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	rows, err := retry.Do(ctx, db.queryOpts, db.sched, judgeRows.of(ctx), nil, func(ctx context.Context) (pgx.Rows, error) {
		c, err := db.acquire(ctx)
		if err != nil {
			return errRows{unmark(err)}, err
		}
		p := probeOf(c.Conn())
		rows, err := c.Query(ctx, sql, args...)
		if err == nil && !rows.Next() {
			err = rows.Err() // the statement failed, or selected no row
			if err == nil {
				c.Release() // the rows are read: the connection is free
				return &poolRows{Rows: rows, peeked: true}, nil
			}
		}
		if err != nil {
			rows.Close()
			c.Release()
			return errRows{err}, p.mark(err)
		}
		return &poolRows{Rows: rows, c: c, peeked: true, more: true}, nil
	})
	return rows, unmark(err)
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
		c, err := r.db.acquire(ctx)
		if err != nil {
			return struct{}{}, err
		}
		defer c.Release()
		p := probeOf(c.Conn())
		return struct{}{}, p.mark(c.QueryRow(ctx, r.sql, r.args...).Scan(dest...))
	})
	return unmark(err)
}

// acquire takes a connection from the pool. Its error is marked as not
// sent: no statement had a connection to be written to.
func (db *DB) acquire(ctx context.Context) (*pgxpool.Conn, error) {
	c, err := db.pool.Acquire(ctx)
	if err != nil {
		return nil, notSent(db.acquireErr(err))
	}
	return c, nil
}

// poolRows are the rows of Query: they return their connection to the
// pool when closed or read to the end, as pgxpool's own rows do. Query
// has already called Next once: peeked says so, and more is what it
// returned.
type poolRows struct {
	pgx.Rows
	c            *pgxpool.Conn
	peeked, more bool
}

func (r *poolRows) Close() {
	r.Rows.Close()
	if r.c != nil {
		r.c.Release()
		r.c = nil
	}
}

func (r *poolRows) Next() bool {
	more := r.more
	if r.peeked {
		r.peeked = false
	} else {
		more = r.Rows.Next()
	}
	if !more {
		r.Close()
	}
	return more
}

func (r *poolRows) Scan(dest ...any) error {
	err := r.Rows.Scan(dest...)
	if err != nil {
		r.Close()
	}
	return err
}

func (r *poolRows) Values() ([]any, error) {
	v, err := r.Rows.Values()
	if err != nil {
		r.Close()
	}
	return v, err
}

// errRows are the rows of a Query that failed, as pgxpool's are.
type errRows struct{ err error }

func (errRows) Close()                                       {}
func (e errRows) Err() error                                 { return e.err }
func (errRows) CommandTag() pgconn.CommandTag                { return pgconn.CommandTag{} }
func (errRows) FieldDescriptions() []pgconn.FieldDescription { return nil }
func (errRows) Next() bool                                   { return false }
func (e errRows) Scan(...any) error                          { return e.err }
func (e errRows) Values() ([]any, error)                     { return nil, e.err }
func (errRows) RawValues() [][]byte                          { return nil }
func (errRows) Conn() *pgx.Conn                              { return nil }
func (errRows) TypeMap() *pgtype.Map                         { return nil }

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
