// Package pgretry runs PostgreSQL statements through pgx (pgxpool or
// database/sql) with recur's rules for databases: a circuit breaker per
// target (the pool's host:port), on by default; retries only for statements marked safe to
// repeat, and for any statement of which no byte was sent;
// transactions rerun whole on a serialization failure or a deadlock,
// never statement by statement.
//
// It is a module of its own, github.com/recur-go/recur/pgretry, so that
// pgx never enters the main module's dependencies.
//
// # Use
//
//	cfg, err := pgxpool.ParseConfig(dsn)
//	if err != nil {
//		return err
//	}
//	pgretry.Instrument(cfg.ConnConfig) // count each connection's bytes
//	pool, err := pgxpool.NewWithConfig(ctx, cfg)
//	if err != nil {
//		return err
//	}
//	db, err := pgretry.New(pool, pgretry.Config{}) // the defaults: see Config
//	if err != nil {
//		return err // an invalid policy, a negative timeout
//	}
//	// Not marked: tried once (again only if no byte of it was sent).
//	_, err = db.Exec(ctx, "UPDATE accounts SET balance = balance + $1 WHERE id = $2", 10, id)
//	// Marked: up to 3 attempts on retry.DefaultSchedule while the database is unreachable.
//	err = db.QueryRow(pgretry.WithIdempotent(ctx), "SELECT name FROM users WHERE id = $1", id).Scan(&name)
//	// A transaction: rerun whole after SQLSTATE 40001 or 40P01.
//	err = db.Tx(ctx, pgx.TxOptions{IsoLevel: pgx.Serializable}, func(tx pgx.Tx) error {
//		_, err := tx.Exec(ctx, "INSERT INTO orders (id, total) VALUES ($1, $2)", order, total)
//		return err
//	})
//
// For database/sql, open the *sql.DB with pgx's driver
// (github.com/jackc/pgx/v5/stdlib.OpenDB, its configuration through
// Instrument) and wrap it with WrapSQL: SQLDB has ExecContext,
// QueryContext, QueryRowContext and Tx, with the same rules.
//
// # The rules
//
//   - The target's breaker guards every attempt, and the target's budget
//     bounds the retries (see Config: the target is the pool's
//     host:port, or SQLTarget for an SQLDB). Unreachable servers, admin
//     or crash shutdowns, too many connections and attempt timeouts count
//     against the breaker; any answer from a live database (a unique violation, a
//     syntax error, a statement timeout) and a pool that had no free
//     connection in time (pool_timeout: the caller's own overload) count
//     nothing. An open breaker fails a call at once, without waiting for
//     a connection, with an error that errors.Is matches to
//     breaker.ErrOpen and whose Code is "circuit_open".
//   - A statement run with a context marked by WithIdempotent is retried
//     on Config.Policy after an error that Classify calls Transient or
//     Retryable.
//   - Any statement, marked or not, is retried when no byte of it was
//     sent: running it again cannot run it twice. pgretry decides this
//     from what it saw, not from the driver's word
//     (pgconn.SafeToRetry, which accepts some statements that were
//     sent): an attempt that failed before it had a connection (the
//     dial was refused, the server refused the connection) sent nothing,
//     and on a pool or *sql.DB whose configuration went through
//     Instrument, an attempt that wrote no byte to its connection sent
//     nothing. Without Instrument, a statement that failed on a
//     connection is retried only if marked. A statement written to a
//     connection the server had already closed — pg_terminate_backend on
//     an idle connection — was sent: pgx learns of the closing only from
//     the reply. pgxpool pings a connection idle for more than a second
//     before handing it out (pgxpool.Config.ShouldPing), so such a
//     connection is replaced before use, and a marked statement is
//     retried in any case.
//   - DB.Tx reruns a transaction after SQLSTATE 40001 or 40P01, rolling
//     it back first, on Config.TxPolicy, and one of which no byte was
//     sent. Statements inside it are never retried; marking one is an
//     error (ErrMarkedInTx). A COMMIT whose answer was lost is never
//     rerun: the error matches ErrCommitUnknown, and any other error
//     from Tx means that the transaction did not commit.
//   - The caller's context and Config.Options.AttemptTimeout bound every
//     attempt, the wait for a connection, the rollback of a failed
//     transaction and the commit included; a call whose context is
//     already done makes no attempt.
//
// Classify and Code are the one classification of errors that all of
// this uses, for callers that run their own loops.
//
// # Errors
//
// A statement that was retried and still failed returns a *retry.Error
// that wraps the last attempt's error and says how many attempts were
// made; errors.As reaches the *pgconn.PgError through it. A statement that
// was not retried returns its error unchanged.
package pgretry
