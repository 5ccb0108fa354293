package pgretry_test

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/pgretry"
	"github.com/recur-go/recur/pgretry/internal/pgtest"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// newSQL opens a *sql.DB on s through pgx's driver, its connections
// counted (pgretry.Instrument), and wraps it, with a breaker of its own
// (c.Breaker nil) that the test reads through SQLDB.Breaker, and counts
// its retries. ping false turns off the driver's ping of connections idle
// for more than a second.
func newSQL(t *testing.T, s *pgtest.Server, extra string, ping bool, c pgretry.Config) (*pgretry.SQLDB, *retries) {
	t.Helper()
	cfg, err := pgx.ParseConfig(s.DSN(extra))
	if err != nil {
		t.Fatal(err)
	}
	pgretry.Instrument(cfg)
	var opts []stdlib.OptionOpenDB
	if !ping {
		opts = append(opts, stdlib.OptionShouldPing(func(context.Context, stdlib.ShouldPingParams) bool { return false }))
	}
	db := stdlib.OpenDB(*cfg, opts...)
	t.Cleanup(func() { db.Close() })
	var r retries
	sdb, err := pgretry.WrapSQL(db, r.config(fastConfig(c)))
	if err != nil {
		t.Fatal(err)
	}
	return sdb, &r
}

// TestSQLTerminateIdle: a marked statement through database/sql on a
// connection the server terminated is retried transparently; an unmarked
// one is not.
func TestSQLTerminateIdle(t *testing.T) {
	s := server(t)
	ctx := testCtx(t)
	admin := newPool(t, s, "", nil)
	for _, marked := range []bool{true, false} {
		app := map[bool]string{true: "sql_marked", false: "sql_unmarked"}[marked]
		db, r := newSQL(t, s, "application_name="+app, false, pgretry.Config{})
		db.DB().SetMaxOpenConns(1)
		if _, err := db.ExecContext(ctx, "SELECT 1"); err != nil {
			t.Fatal(err)
		}
		terminate(t, admin, app) // the driver's ping is off: the dead connection is handed out
		c := ctx
		if marked {
			c = pgretry.WithIdempotent(ctx)
		}
		var one int
		err := db.QueryRowContext(c, "SELECT 1").Scan(&one)
		switch {
		case marked && (err != nil || one != 1 || r.n.Load() != 1):
			t.Errorf("marked: %d, %v after %d retries; want 1, nil after 1", one, err, r.n.Load())
		case !marked && (pgretry.Code(err) != "shutdown" || r.n.Load() != 0):
			t.Errorf("unmarked: %v (code %q) after %d retries; want shutdown, not retried", err, pgretry.Code(err), r.n.Load())
		}
	}
}

// TestSQLTx: write skew through database/sql: one transaction is rerun,
// each commits once; a marked statement inside one is refused.
func TestSQLTx(t *testing.T) {
	s := server(t)
	pool := newPool(t, s, "", nil)
	exec(t, pool,
		"DROP TABLE IF EXISTS sqlskew, sqlskew_effects",
		"CREATE TABLE sqlskew (id int PRIMARY KEY, v int NOT NULL)",
		"CREATE TABLE sqlskew_effects (side text NOT NULL)",
		"INSERT INTO sqlskew VALUES (1, 0), (2, 0)")
	db, _ := newSQL(t, s, "", true, pgretry.Config{})
	ctx := testCtx(t)
	bar := newBarrier(2)
	var runs atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, side := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			first := true
			errs[i] = db.Tx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable}, func(tx *pgretry.SQLTx) error {
				runs.Add(1)
				if _, err := tx.ExecContext(ctx, "INSERT INTO sqlskew_effects VALUES ($1)", side); err != nil {
					return err
				}
				var sum int
				if err := tx.QueryRowContext(ctx, "SELECT sum(v) FROM sqlskew").Scan(&sum); err != nil {
					return err
				}
				if first {
					first = false
					if err := bar.wait(); err != nil {
						return err
					}
				}
				_, err := tx.ExecContext(ctx, "UPDATE sqlskew SET v = $1 WHERE id = $2", sum+1, i+1)
				return err
			})
		}()
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil || runs.Load() < 3 {
		t.Fatalf("transactions: %v, %v after %d runs; want nil, nil after at least 3", errs[0], errs[1], runs.Load())
	}
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM sqlskew_effects").Scan(&n); err != nil || n != 2 {
		t.Errorf("committed side effects: %d, %v; want 2", n, err)
	}

	err := db.Tx(ctx, nil, func(tx *pgretry.SQLTx) error {
		_, err := tx.ExecContext(pgretry.WithIdempotent(ctx), "SELECT 1")
		return err
	})
	if !errors.Is(err, pgretry.ErrMarkedInTx) {
		t.Errorf("marked statement in a transaction: %v; want ErrMarkedInTx", err)
	}
}

// TestSQLFaults: through database/sql, a unique violation is not retried
// and a full pool is a pool_timeout, neither counted by the breaker; a
// stopped server opens the breaker.
func TestSQLFaults(t *testing.T) {
	s := pgtest.Start(t)
	ctx := testCtx(t)
	const openFor = 300 * time.Millisecond
	bs := breakers(t, breaker.Config{ConsecutiveFailures: 2,
		OpenFor: schedule.Exponential{Base: openFor, FactorPct: 100, Cap: openFor}})
	// The attempt timeout is for the full pool below; it is long enough
	// for a statement on a loaded machine.
	db, r := newSQL(t, s, "", true, pgretry.Config{Breaker: bs, Options: retry.Options{AttemptTimeout: time.Second}})
	b := db.Breaker()
	db.DB().SetMaxOpenConns(1)
	if _, err := db.DB().ExecContext(ctx, "CREATE TABLE u (id int PRIMARY KEY); INSERT INTO u VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	before := b.Stats()
	if _, err := db.ExecContext(pgretry.WithIdempotent(ctx), "INSERT INTO u VALUES (1)"); pgretry.Code(err) != "database_error" {
		t.Errorf("unique violation: %v (code %q); want database_error", err, pgretry.Code(err))
	}
	conn, err := db.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.ExecContext(pgretry.WithIdempotent(ctx), "SELECT 1")
	conn.Close()
	if pgretry.Code(err) != "pool_timeout" || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("full pool: %v (code %q); want pool_timeout", err, pgretry.Code(err))
	}
	if diff := cmp.Diff(before, b.Stats()); diff != "" || r.n.Load() != 0 {
		t.Errorf("%d retries; breaker stats (-before +after):\n%s", r.n.Load(), diff)
	}

	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	for i := 0; b.State() != breaker.Open; i++ {
		if i == 2 {
			t.Fatalf("breaker %+v after 2 calls on a stopped server; want open", b.Stats())
		}
		// The refused connection is retried (nothing was sent), so the
		// call's own retries may open the breaker.
		if _, err := db.ExecContext(ctx, "SELECT 1"); !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("stopped server: %v (code %q); want connection refused", err, pgretry.Code(err))
		}
	}
	if _, err := db.ExecContext(ctx, "SELECT 1"); !errors.Is(err, breaker.ErrOpen) || pgretry.Code(err) != "circuit_open" {
		t.Errorf("open breaker: %v; want breaker.ErrOpen, circuit_open", err)
	}
}
