package pgretry_test

import (
	"context"
	"errors"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/pgretry"
	"github.com/recur-go/recur/pgretry/internal/pgtest"
	"github.com/recur-go/recur/schedule"
)

// TestOutage stops the server: the breaker opens after its rule's number
// of failures, then refuses every call at once without a connection
// attempt; the server comes back, the open time passes, and one probe
// closes the breaker.
func TestOutage(t *testing.T) {
	s := pgtest.Start(t)
	ctx := testCtx(t)
	var connects atomic.Int64
	pool := newPool(t, s, "pool_max_conns=4", func(cfg *pgxpool.Config) {
		cfg.BeforeConnect = func(context.Context, *pgx.ConnConfig) error {
			connects.Add(1)
			return nil
		}
	})
	const openFor = 300 * time.Millisecond
	db, _ := newDB(t, pool, pgretry.Config{Breaker: breakers(t, breaker.Config{
		ConsecutiveFailures: 3,
		OpenFor:             schedule.Exponential{Base: openFor, FactorPct: 100, Cap: openFor},
	})})
	b := db.Breaker()
	if _, err := db.Exec(ctx, "SELECT 1"); err != nil {
		t.Fatalf("before the outage: %v", err)
	}

	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	// Each failed attempt counts one failure; the breaker opens on the
	// third. A call retries what was never sent, a refused connection
	// included, so it makes more than one attempt, and its own retries
	// may open the breaker.
	calls := 0
	for b.Stats().Failures < 3 {
		if calls++; calls > 3 {
			t.Fatalf("the breaker let %d calls through; want at most 3 for 3 failures", calls)
		}
		_, err := db.Exec(ctx, "SELECT 1")
		// The first call may meet the pooled connection that the stop cut
		// (a failure, not retried: it was sent); the others are refused.
		if !errors.Is(err, syscall.ECONNREFUSED) && !pgretry.Classify(err).Failed() {
			t.Fatalf("call %d during the outage: %v (code %q); want a failure or connection refused", calls, err, pgretry.Code(err))
		}
	}
	if st := b.Stats(); st.State != breaker.Open || st.Failures != 3 {
		t.Fatalf("after 3 failed attempts: breaker %+v; want open after 3 failures", st)
	}

	// Open: every call, marked or not, fails at once, without a connect.
	before := connects.Load()
	for i := 0; i < 20; i++ {
		start := time.Now()
		_, err := db.Exec(pgretry.WithIdempotent(ctx), "SELECT 1")
		took := time.Since(start)
		if !errors.Is(err, breaker.ErrOpen) || pgretry.Code(err) != "circuit_open" {
			t.Fatalf("call %d while open: %v (code %q); want breaker.ErrOpen, circuit_open", i, err, pgretry.Code(err))
		}
		if took > 250*time.Millisecond {
			t.Errorf("call %d while open took %v; want at once", i, took)
		}
	}
	if n := connects.Load() - before; n != 0 {
		t.Errorf("%d connection attempts while the breaker was open; want 0", n)
	}

	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(openFor + 50*time.Millisecond)
	var one int
	if err := db.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("the probe after the outage: %d, %v; want 1, nil", one, err)
	}
	if st := b.Stats(); st.State != breaker.Closed || st.Opened != 1 {
		t.Errorf("after the probe: breaker %+v; want closed, opened once", st)
	}
}

// TestTerminateIdle terminates the pool's idle connections with
// pg_terminate_backend. A marked statement on a reused dead connection is
// retried transparently; an unmarked one was sent, so it is not; with
// pgxpool's ping of idle connections, none of them sees the dead
// connection.
func TestTerminateIdle(t *testing.T) {
	s := server(t)
	ctx := testCtx(t)
	admin := newPool(t, s, "", nil)
	warm := func(pool *pgxpool.Pool) {
		t.Helper()
		if _, err := pool.Exec(ctx, "SELECT 1"); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("marked", func(t *testing.T) {
		pool := newPool(t, s, "pool_max_conns=1 application_name=terminate_marked", noPing)
		db, r := newDB(t, pool, pgretry.Config{})
		warm(pool)
		terminate(t, admin, "terminate_marked")
		var one int
		if err := db.QueryRow(pgretry.WithIdempotent(ctx), "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Fatalf("marked statement on a terminated connection: %d, %v; want 1, nil", one, err)
		}
		if r.n.Load() != 1 {
			t.Errorf("%d retries; want 1", r.n.Load())
		}
	})
	t.Run("unmarked", func(t *testing.T) {
		pool := newPool(t, s, "pool_max_conns=1 application_name=terminate_unmarked", noPing)
		db, r := newDB(t, pool, pgretry.Config{})
		warm(pool)
		terminate(t, admin, "terminate_unmarked")
		_, err := db.Exec(ctx, "SELECT 1")
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "57P01" || pgretry.Code(err) != "shutdown" {
			t.Fatalf("unmarked statement on a terminated connection: %v (code %q); want SQLSTATE 57P01, shutdown", err, pgretry.Code(err))
		}
		if r.n.Load() != 0 {
			t.Errorf("%d retries of a statement that was sent; want 0", r.n.Load())
		}
	})
	t.Run("pinged", func(t *testing.T) {
		pool := newPool(t, s, "pool_max_conns=1 application_name=terminate_pinged", nil)
		db, r := newDB(t, pool, pgretry.Config{})
		warm(pool)
		terminate(t, admin, "terminate_pinged")
		time.Sleep(1100 * time.Millisecond) // idle for more than pgxpool's ping threshold
		if _, err := db.Exec(ctx, "SELECT 1"); err != nil {
			t.Fatalf("unmarked statement after the ping replaced the connection: %v", err)
		}
		if r.n.Load() != 0 {
			t.Errorf("%d retries; want 0", r.n.Load())
		}
	})
}

// TestNotSentRetried breaks the pool's idle connections under pgx, so
// that the next statements fail before a byte is sent: an unmarked
// statement is retried until a connection works, where the plain pool
// returns the error.
func TestNotSentRetried(t *testing.T) {
	s := server(t)
	ctx := testCtx(t)
	breakIdle := func(pool *pgxpool.Pool) {
		t.Helper()
		var held []*pgxpool.Conn
		for range 2 {
			c, err := pool.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, c)
		}
		for _, c := range held {
			c.Conn().PgConn().Conn().Close() // the socket dies; pgx does not know yet
			c.Release()
		}
	}

	plain := newPool(t, s, "pool_max_conns=2", noPing)
	breakIdle(plain)
	_, err := plain.Exec(ctx, "SELECT 1")
	if !pgconn.SafeToRetry(err) {
		t.Fatalf("plain pgxpool on a broken connection: %v; want an error that is safe to retry", err)
	}

	pool := newPool(t, s, "pool_max_conns=2", noPing)
	db, r := newDB(t, pool, pgretry.Config{})
	breakIdle(pool)
	if _, err := db.Exec(ctx, "SELECT 1"); err != nil {
		t.Fatalf("unmarked statement on broken connections: %v; want it retried until it works", err)
	}
	if r.n.Load() == 0 {
		t.Error("no retry; want at least one")
	}
}

// terminate ends the backends of application app with
// pg_terminate_backend, and waits until they are gone.
func terminate(t *testing.T, admin *pgxpool.Pool, app string) {
	t.Helper()
	ctx := testCtx(t)
	var n int
	err := admin.QueryRow(ctx, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1", app).Scan(&n)
	if err != nil || n == 0 {
		t.Fatalf("terminated %d backends of %s: %v; want some", n, app, err)
	}
	// pg_terminate_backend only signals: wait until they are gone.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", app).Scan(&n); err != nil || n == 0 {
			return
		}
	}
	t.Fatalf("backends of %s still alive", app)
}
