package pgretry_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/pgretry"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/verdict"
)

// TestAnswersNotRetried: a statement timeout and a unique violation are
// answers from a live database: a marked statement that gets one is not
// retried, and the breaker counts nothing.
func TestAnswersNotRetried(t *testing.T) {
	pool := newPool(t, server(t), "", func(cfg *pgxpool.Config) {
		cfg.ConnConfig.RuntimeParams["statement_timeout"] = "100"
	})
	exec(t, pool, "DROP TABLE IF EXISTS uniq", "CREATE TABLE uniq (id int PRIMARY KEY)", "INSERT INTO uniq VALUES (1)")
	db, r := newDB(t, pool, pgretry.Config{})
	ctx := pgretry.WithIdempotent(testCtx(t))
	before := db.Breaker().Stats()
	for _, tt := range []struct {
		sql, state, code string
	}{
		{"SELECT pg_sleep(5)", "57014", "statement_timeout"},
		{"INSERT INTO uniq VALUES (1)", "23505", "database_error"},
		{"SELEC 1", "42601", "database_error"},
	} {
		_, err := db.Exec(ctx, tt.sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != tt.state || pgretry.Code(err) != tt.code || pgretry.Classify(err) != verdict.Neutral {
			t.Errorf("%s: %v (code %q, %v); want SQLSTATE %s, %s, neutral", tt.sql, err, pgretry.Code(err), pgretry.Classify(err), tt.state, tt.code)
		}
	}
	if r.n.Load() != 0 {
		t.Errorf("%d retries; want 0", r.n.Load())
	}
	after := db.Breaker().Stats()
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("breaker stats (-before +after):\n%s", diff)
	}
}

// TestPoolTimeout: a pool of one connection that the test holds. A
// marked statement waits for a connection until its attempt timeout: the
// error is pool_timeout, not retried, and the breaker counts nothing.
func TestPoolTimeout(t *testing.T) {
	pool := newPool(t, server(t), "pool_max_conns=1", nil)
	db, r := newDB(t, pool, pgretry.Config{Options: retry.Options{AttemptTimeout: 100 * time.Millisecond}})
	ctx := testCtx(t)
	held, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	before := db.Breaker().Stats()
	start := time.Now()
	_, err = db.Exec(pgretry.WithIdempotent(ctx), "SELECT 1")
	if pgretry.Code(err) != "pool_timeout" || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("statement on a full pool: %v (code %q); want pool_timeout, context.DeadlineExceeded", err, pgretry.Code(err))
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %v; want about the attempt timeout", took)
	}
	if r.n.Load() != 0 {
		t.Errorf("%d retries; want 0", r.n.Load())
	}
	if diff := cmp.Diff(before, db.Breaker().Stats()); diff != "" {
		t.Errorf("breaker stats (-before +after):\n%s", diff)
	}
}

// TestConcurrent runs statements, queries and transactions from many
// goroutines on a small pool, under -race: every increment lands once.
func TestConcurrent(t *testing.T) {
	pool := newPool(t, server(t), "pool_max_conns=4", nil)
	exec(t, pool, "DROP TABLE IF EXISTS counter", "CREATE TABLE counter (id int PRIMARY KEY, n int NOT NULL)", "INSERT INTO counter VALUES (1, 0)")
	db, _ := newDB(t, pool, pgretry.Config{})
	ctx := testCtx(t)
	const workers, each = 8, 25
	var wg sync.WaitGroup
	var done atomic.Int64 // increments that returned nil
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				var err error
				switch (w + i) % 4 {
				case 0:
					_, err = db.Exec(ctx, "UPDATE counter SET n = n + 1 WHERE id = 1")
				case 1:
					err = db.Tx(ctx, pgx.TxOptions{IsoLevel: pgx.Serializable}, func(tx pgx.Tx) error {
						var n int
						if err := tx.QueryRow(ctx, "SELECT n FROM counter WHERE id = 1").Scan(&n); err != nil {
							return err
						}
						_, err := tx.Exec(ctx, "UPDATE counter SET n = $1 WHERE id = 1", n+1)
						return err
					})
				case 2:
					var n int
					err = db.QueryRow(pgretry.WithIdempotent(ctx), "SELECT n FROM counter WHERE id = 1").Scan(&n)
					if err == nil {
						_, err = db.Exec(ctx, "UPDATE counter SET n = n + 1 WHERE id = 1")
					}
				case 3:
					var rows pgx.Rows
					if rows, err = db.Query(pgretry.WithIdempotent(ctx), "SELECT n FROM counter"); err == nil {
						_, err = pgx.CollectRows(rows, pgx.RowTo[int])
					}
					if err == nil {
						_, err = db.Exec(ctx, "UPDATE counter SET n = n + 1 WHERE id = 1")
					}
				}
				if err != nil {
					errs <- err
				} else {
					done.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		// A serializable transaction can exhaust its 3 runs under this
		// contention; anything else is a bug.
		if pgretry.Code(err) != "serialization_failure" {
			t.Errorf("concurrent call: %v (code %q)", err, pgretry.Code(err))
		}
	}
	var n int64
	if err := pool.QueryRow(ctx, "SELECT n FROM counter WHERE id = 1").Scan(&n); err != nil || n != done.Load() {
		t.Errorf("counter = %d, %v; want %d, one per call that succeeded", n, err, done.Load())
	}
	if st := db.Breaker().Stats(); st.Failures != 0 || st.State != breaker.Closed {
		t.Errorf("breaker %+v; want closed, no failure", st)
	}
}
