package pgretry_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/pgretry"
)

var (
	ctx context.Context
	dsn string
)

func ExampleNew() {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	// A breaker that opens after 3 failures in a row instead of 5.
	b, err := breaker.New(breaker.Config{Name: "orders-db", ConsecutiveFailures: 3})
	if err != nil {
		log.Fatal(err)
	}
	db, err := pgretry.New(pool, pgretry.Options{Breaker: b})
	if err != nil {
		log.Fatal(err) // an invalid schedule or option
	}
	var name string
	err = db.QueryRow(pgretry.Safe(ctx), "SELECT name FROM users WHERE id = $1", 42).Scan(&name)
	if pgretry.Code(err) == "circuit_open" {
		log.Print("the database is down; failing fast")
	}
}

func ExampleSafe() {
	var db *pgretry.DB
	// A read may run twice: mark it, and it is retried while the database
	// is unreachable or shutting down.
	rows, err := db.Query(pgretry.Safe(ctx), "SELECT id FROM jobs WHERE state = 'ready'")
	if err != nil {
		log.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	fmt.Println(ids, err)
	// An increment may not: leave it unmarked, and it is retried only if
	// it failed before it was sent.
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

func ExampleWrapSQL() {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		log.Fatal(err)
	}
	sqlDB := stdlib.OpenDB(*cfg) // or sql.Open("pgx", dsn)
	defer sqlDB.Close()
	db, err := pgretry.WrapSQL(sqlDB, pgretry.Options{})
	if err != nil {
		log.Fatal(err)
	}
	var n int
	err = db.QueryRowContext(pgretry.Safe(ctx), "SELECT count(*) FROM users").Scan(&n)
	fmt.Println(n, err)
	err = db.Tx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable}, func(tx *pgretry.SQLTx) error {
		_, err := tx.ExecContext(ctx, "DELETE FROM carts WHERE expires < now()")
		return err
	})
	fmt.Println(err)
}
