package pgretry_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/pgretry"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

var (
	ctx context.Context
	dsn string
)

func ExampleNew() {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		log.Fatal(err)
	}
	// Count each connection's bytes, so that a statement that never left
	// is retried even when it is not marked.
	pgretry.Instrument(cfg.ConnConfig)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	// Breakers that open after 3 failures in a row instead of 5, one per
	// target: this DB's is the pool's host:port.
	breakers, err := breaker.NewRegistry(breaker.Config{ConsecutiveFailures: 3}, 0)
	if err != nil {
		log.Fatal(err)
	}
	db, err := pgretry.New(pool, pgretry.Config{Breaker: breakers})
	if err != nil {
		log.Fatal(err) // an invalid policy or option
	}
	var name string
	err = db.QueryRow(pgretry.WithIdempotent(ctx), "SELECT name FROM users WHERE id = $1", 42).Scan(&name)
	if pgretry.Code(err) == "circuit_open" {
		log.Print("the database is down; failing fast")
	}
}

// A Config with a policy of its own for statements and another for
// transactions, the runner's events logged, and no default budget.
func ExampleConfig() {
	var pool *pgxpool.Pool
	db, err := pgretry.New(pool, pgretry.Config{
		// Marked statements: up to 5 attempts, full jitter from 50ms
		// doubling to 1s; parse.Parse("fulljitter(50ms, 1s) & times(5)")
		// reads the same policy from text.
		Policy: schedule.Intersect{
			A: schedule.FullJitter(50*time.Millisecond, time.Second),
			B: schedule.Times{N: 5},
		},
		// Transactions: rerun at most twice, with jitter, so that two
		// that conflicted do not meet again.
		TxPolicy: schedule.Intersect{
			A: schedule.FullJitter(10*time.Millisecond, 200*time.Millisecond),
			B: schedule.Times{N: 3},
		},
		Options: retry.Options{
			AttemptTimeout: 2 * time.Second,
			// A debug record per retry, a warning when a call gives up.
			Observer: retry.LogObserver(slog.Default()),
			// No default budget: only the policies limit the retries.
			Unthrottled: true,
		},
	})
	if err != nil {
		log.Fatal(err) // an invalid policy or option
	}
	fmt.Println(db.Breaker().Name()) // the pool's host:port
}

func ExampleWithIdempotent() {
	var db *pgretry.DB
	// A read may run twice: mark it, and it is retried while the database
	// is unreachable or shutting down.
	rows, err := db.Query(pgretry.WithIdempotent(ctx), "SELECT id FROM jobs WHERE state = 'ready'")
	if err != nil {
		log.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	fmt.Println(ids, err)
	// An increment may not: leave it unmarked, and it is retried only if
	// no byte of it was written to a connection.
	_, err = db.Exec(ctx, "UPDATE counters SET n = n + 1 WHERE id = 1")
	fmt.Println(err)
}

func ExampleDB_Tx() {
	var db *pgretry.DB
	// Rerun whole on a serialization failure or a deadlock: fn must have no
	// effect outside the transaction.
	err := db.Tx(ctx, pgx.TxOptions{IsoLevel: pgx.Serializable}, func(tx pgx.Tx) error {
		var balance int
		if err := tx.QueryRow(ctx, "SELECT balance FROM accounts WHERE id = $1", 1).Scan(&balance); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE accounts SET balance = $1 WHERE id = $2", balance-10, 1)
		return err
	})
	fmt.Println(err)
}

// A COMMIT whose answer was lost is never rerun: the transaction may have
// committed. Find out from the database, here by the order's own key,
// before doing it again.
func ExampleErrCommitUnknown() {
	var db *pgretry.DB
	const order = "o-1017"
	err := db.Tx(ctx, pgx.TxOptions{}, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "INSERT INTO orders (id, total) VALUES ($1, $2)", order, 250)
		return err
	})
	switch {
	case errors.Is(err, pgretry.ErrCommitUnknown):
		var n int
		if err := db.QueryRow(pgretry.WithIdempotent(ctx), "SELECT count(*) FROM orders WHERE id = $1", order).Scan(&n); err != nil {
			log.Fatal(err) // still unknown: try again later
		}
		fmt.Println("committed:", n == 1)
	case err != nil:
		fmt.Println("not committed:", err) // any other error: it did not commit
	}
}

func ExampleWrapSQL() {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		log.Fatal(err)
	}
	pgretry.Instrument(cfg)      // count each connection's bytes
	sqlDB := stdlib.OpenDB(*cfg) // sql.Open("pgx", dsn) cannot be instrumented
	defer sqlDB.Close()
	db, err := pgretry.WrapSQL(sqlDB, pgretry.Config{})
	if err != nil {
		log.Fatal(err)
	}
	var n int
	err = db.QueryRowContext(pgretry.WithIdempotent(ctx), "SELECT count(*) FROM users").Scan(&n)
	fmt.Println(n, err)
	err = db.Tx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable}, func(tx *pgretry.SQLTx) error {
		_, err := tx.ExecContext(ctx, "DELETE FROM carts WHERE expires < now()")
		return err
	})
	fmt.Println(err)
}
