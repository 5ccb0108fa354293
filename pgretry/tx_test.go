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
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/recur-go/recur/pgretry"
	"github.com/recur-go/recur/schedule"
)

// exec runs statements on pool or fails the test.
func exec(t *testing.T, pool *pgxpool.Pool, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := pool.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// barrier lets n goroutines wait for each other once, for at most 10 s.
type barrier struct {
	wg   sync.WaitGroup
	done chan struct{}
}

func newBarrier(n int) *barrier {
	b := &barrier{done: make(chan struct{})}
	b.wg.Add(n)
	go func() { b.wg.Wait(); close(b.done) }()
	return b
}

func (b *barrier) wait() error {
	b.wg.Done()
	select {
	case <-b.done:
		return nil
	case <-time.After(10 * time.Second):
		return errors.New("barrier: timed out")
	}
}

// contended is the transaction schedule of the conflict tests. Reruns at
// once (fastConfig) can meet the other side again and again: a rerun
// victim can run into the winner before it commits (40001), and two
// reruns can deadlock anew. Full jitter breaks the symmetry, as it does
// for retry.DefaultSchedule in production; ten attempts leave room for a slow,
// loaded machine.
var contended = schedule.Intersect{
	A: schedule.FullJitter(time.Millisecond, 50*time.Millisecond),
	B: schedule.Times{N: 10},
}

// conflict runs two transactions, a and b, that both pass a barrier on
// their first run only, and checks that each commits exactly once and
// that at least one ran again. body is one run of a transaction: side
// is "a" or "b"; first says whether this is its first run.
func conflict(t *testing.T, db *pgretry.DB, pool *pgxpool.Pool, table string, body func(ctx context.Context, tx pgx.Tx, side string, first bool, wait func() error) error) {
	t.Helper()
	ctx := testCtx(t)
	bar := newBarrier(2)
	var runs [2]atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, side := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = db.Tx(ctx, pgx.TxOptions{IsoLevel: pgx.Serializable}, func(tx pgx.Tx) error {
				first := runs[i].Add(1) == 1
				if _, err := tx.Exec(ctx, "INSERT INTO "+table+"_effects (side) VALUES ($1)", side); err != nil {
					return err
				}
				return body(ctx, tx, side, first, bar.wait)
			})
		}()
	}
	wg.Wait()
	if diff := cmp.Diff([]error{nil, nil}, errs, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
		t.Fatalf("transaction errors (-want +got):\n%s", diff)
	}
	if runs[0].Load()+runs[1].Load() < 3 {
		t.Errorf("runs a=%d b=%d; want one of them run again", runs[0].Load(), runs[1].Load())
	}
	var got []string
	rows, err := pool.Query(ctx, "SELECT side FROM "+table+"_effects ORDER BY side")
	if err != nil {
		t.Fatal(err)
	}
	got, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a", "b"}, got); diff != "" {
		t.Errorf("committed side effects (-want +got):\n%s", diff)
	}
}

// TestTxSerializationFailure: write skew under SERIALIZABLE. Both read
// both rows, then each updates its own: one fails with 40001 and is
// rerun, and each commits exactly once.
func TestTxSerializationFailure(t *testing.T) {
	pool := newPool(t, server(t), "", nil)
	exec(t, pool,
		"DROP TABLE IF EXISTS skew, skew_effects",
		"CREATE TABLE skew (id int PRIMARY KEY, v int NOT NULL)",
		"CREATE TABLE skew_effects (side text NOT NULL)",
		"INSERT INTO skew VALUES (1, 0), (2, 0)")
	db, _ := newDB(t, pool, pgretry.Config{TxPolicy: contended})
	conflict(t, db, pool, "skew", func(ctx context.Context, tx pgx.Tx, side string, first bool, wait func() error) error {
		var sum int
		if err := tx.QueryRow(ctx, "SELECT sum(v) FROM skew").Scan(&sum); err != nil {
			return err
		}
		if first {
			if err := wait(); err != nil {
				return err
			}
		}
		id := map[string]int{"a": 1, "b": 2}[side]
		_, err := tx.Exec(ctx, "UPDATE skew SET v = $1 WHERE id = $2", sum+1, id)
		return err
	})
	if st := db.Breaker().Stats(); st.Failures != 0 {
		t.Errorf("breaker %+v; want no failure counted for a serialization failure", st)
	}
}

// TestTxDeadlock: a locks row 1 then row 2, b the other way round: the
// server breaks the deadlock with 40P01, the victim is rerun, and each
// commits exactly once.
func TestTxDeadlock(t *testing.T) {
	pool := newPool(t, server(t), "", nil)
	exec(t, pool,
		"DROP TABLE IF EXISTS locks, locks_effects",
		"CREATE TABLE locks (id int PRIMARY KEY, v int NOT NULL)",
		"CREATE TABLE locks_effects (side text NOT NULL)",
		"INSERT INTO locks VALUES (1, 0), (2, 0)")
	db, _ := newDB(t, pool, pgretry.Config{TxPolicy: contended})
	conflict(t, db, pool, "locks", func(ctx context.Context, tx pgx.Tx, side string, first bool, wait func() error) error {
		order := map[string][2]int{"a": {1, 2}, "b": {2, 1}}[side]
		if _, err := tx.Exec(ctx, "UPDATE locks SET v = v + 1 WHERE id = $1", order[0]); err != nil {
			return err
		}
		if first {
			if err := wait(); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, "UPDATE locks SET v = v + 1 WHERE id = $1", order[1])
		return err
	})
	var sum int
	if err := pool.QueryRow(context.Background(), "SELECT sum(v) FROM locks").Scan(&sum); err != nil || sum != 4 {
		t.Errorf("sum of the rows = %d, %v; want 4: each transaction's two updates, once", sum, err)
	}
}

// TestTxMarked: a marked statement inside a transaction fails with
// ErrMarkedInTx and is not run; the transaction rolls back and is not
// rerun. A transaction begun with a marked context fails at once.
func TestTxMarked(t *testing.T) {
	pool := newPool(t, server(t), "", nil)
	exec(t, pool, "DROP TABLE IF EXISTS marked", "CREATE TABLE marked (v int)")
	db, r := newDB(t, pool, pgretry.Config{})
	ctx := testCtx(t)
	runs := 0
	err := db.Tx(ctx, pgx.TxOptions{}, func(tx pgx.Tx) error {
		runs++
		if _, err := tx.Exec(ctx, "INSERT INTO marked VALUES (1)"); err != nil {
			return err
		}
		_, err := tx.Exec(pgretry.WithIdempotent(ctx), "INSERT INTO marked VALUES (2)")
		return err
	})
	if !errors.Is(err, pgretry.ErrMarkedInTx) || runs != 1 || r.n.Load() != 0 {
		t.Fatalf("Tx with a marked statement: %v after %d runs, %d retries; want ErrMarkedInTx after 1 run, no retry", err, runs, r.n.Load())
	}
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM marked").Scan(&n); err != nil || n != 0 {
		t.Errorf("rows after the failed transaction: %d, %v; want 0 (rolled back)", n, err)
	}
	for name, call := range map[string]func(tx pgx.Tx) error{
		"Query":    func(tx pgx.Tx) error { _, err := tx.Query(pgretry.WithIdempotent(ctx), "SELECT 1"); return err },
		"QueryRow": func(tx pgx.Tx) error { return tx.QueryRow(pgretry.WithIdempotent(ctx), "SELECT 1").Scan(new(int)) },
		"Begin":    func(tx pgx.Tx) error { _, err := tx.Begin(pgretry.WithIdempotent(ctx)); return err },
		"Batch": func(tx pgx.Tx) error {
			b := &pgx.Batch{}
			b.Queue("SELECT 1")
			return tx.SendBatch(pgretry.WithIdempotent(ctx), b).Close()
		},
	} {
		if err := db.Tx(ctx, pgx.TxOptions{}, call); !errors.Is(err, pgretry.ErrMarkedInTx) {
			t.Errorf("%s marked in a transaction: %v; want ErrMarkedInTx", name, err)
		}
	}
	if err := db.Tx(pgretry.WithIdempotent(ctx), pgx.TxOptions{}, func(pgx.Tx) error { runs++; return nil }); !errors.Is(err, pgretry.ErrMarkedInTx) || runs != 1 {
		t.Errorf("Tx with a marked context: %v, ran=%v; want ErrMarkedInTx, not run", err, runs != 1)
	}
}

// TestTxPanic: a panic in the transaction function goes up to the
// caller, after the transaction is rolled back and its connection
// returned to the pool.
func TestTxPanic(t *testing.T) {
	pool := newPool(t, server(t), "", nil)
	exec(t, pool, "DROP TABLE IF EXISTS panics", "CREATE TABLE panics (v int)")
	db, _ := newDB(t, pool, pgretry.Config{})
	ctx := testCtx(t)
	got := func() (r any) {
		defer func() { r = recover() }()
		db.Tx(ctx, pgx.TxOptions{}, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "INSERT INTO panics VALUES (1)"); err != nil {
				return err
			}
			panic("boom")
		})
		return nil
	}()
	if got != "boom" {
		t.Fatalf("recovered %v; want the function's panic", got)
	}
	if n := pool.Stat().AcquiredConns(); n != 0 {
		t.Errorf("%d connections still acquired; want 0", n)
	}
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM panics").Scan(&n); err != nil || n != 0 {
		t.Errorf("rows: %d, %v; want 0 (rolled back)", n, err)
	}
}
