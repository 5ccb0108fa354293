// Command example runs a few statements on a PostgreSQL server through
// pgretry: a table, a transaction that is rerun on a serialization
// failure, a read marked safe to retry, and the breaker's counters.
//
//	go run ./example -dsn 'postgres://user:pass@127.0.0.1:5432/db?sslmode=disable'
//
// It creates the table recur_example_visits, and drops it when done.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/recur-go/recur/pgretry"
)

func main() {
	dsn := flag.String("dsn", os.Getenv("DATABASE_URL"), "PostgreSQL connection string (default $DATABASE_URL)")
	flag.Parse()
	if *dsn == "" {
		fmt.Fprintln(os.Stderr, "usage: example -dsn 'postgres://user:pass@127.0.0.1:5432/db'")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := run(ctx, *dsn, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "example:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, dsn string, out io.Writer) error {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return err
	}
	// Count each connection's bytes: an unmarked statement that never
	// left is then retried.
	pgretry.Instrument(cfg.ConnConfig)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	db, err := pgretry.New(pool, pgretry.Config{})
	if err != nil {
		return err
	}

	// DDL is not marked: it is run once.
	if _, err := db.Exec(ctx, "CREATE TABLE recur_example_visits (page text PRIMARY KEY, n int NOT NULL)"); err != nil {
		return err
	}
	defer db.Exec(context.WithoutCancel(ctx), "DROP TABLE recur_example_visits")

	// A read-modify-write under SERIALIZABLE: rerun whole if another
	// transaction conflicts with it.
	for _, page := range []string{"/", "/about", "/"} {
		err := db.Tx(ctx, pgx.TxOptions{IsoLevel: pgx.Serializable}, func(tx pgx.Tx) error {
			var n int
			err := tx.QueryRow(ctx, "SELECT n FROM recur_example_visits WHERE page = $1", page).Scan(&n)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
			_, err = tx.Exec(ctx, "INSERT INTO recur_example_visits VALUES ($1, $2) ON CONFLICT (page) DO UPDATE SET n = $2", page, n+1)
			return err
		})
		if err != nil {
			return fmt.Errorf("visit %s: %w (code %s)", page, err, pgretry.Code(err))
		}
	}

	// A read is safe to repeat: mark it.
	var n int
	if err := db.QueryRow(pgretry.WithIdempotent(ctx), "SELECT n FROM recur_example_visits WHERE page = $1", "/").Scan(&n); err != nil {
		return fmt.Errorf("read: %w (code %s)", err, pgretry.Code(err))
	}
	st := db.Breaker().Stats()
	fmt.Fprintf(out, "visits of /: %d\nbreaker: %s, %d successes, %d failures\n", n, st.State, st.Successes, st.Failures)
	return nil
}
