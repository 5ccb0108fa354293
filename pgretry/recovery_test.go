package pgretry_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/recur-go/recur/pgretry"
	"github.com/recur-go/recur/pgretry/internal/pgtest"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/retry/retrytest"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

// TestCannotConnectNow: a server in recovery refuses every connection
// with SQLSTATE 57P03, and that counts against the breaker. The server is
// kept in recovery for as long as the test needs by starting it as a
// standby with hot_standby off and nothing to stream from
// (pgtest.StartStandby); promoting it ends recovery. (Crash recovery
// refuses with 57P03 too, "the database system is in recovery mode", but
// for a fraction of a second that a test cannot hold; see
// TestCrashShutdown.)
func TestCannotConnectNow(t *testing.T) {
	s := pgtest.Start(t)
	ctx := testCtx(t)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.StartStandby(); err != nil {
		t.Fatal(err)
	}
	t.Logf("the server in recovery: %v", waitCannotConnect(t, s))

	pool := newPool(t, s, "", nil)
	db, r := newDB(t, pool, pgretry.Config{Breaker: countingBreakers(t)})
	b := db.Breaker()
	check := func(err error, attempts int, failures uint64) {
		t.Helper()
		n := 1
		var re *retry.Error
		if errors.As(err, &re) {
			n = re.Attempts
		}
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "57P03" || pgretry.Code(err) != "shutdown" || pgretry.Classify(err) != verdict.Transient {
			t.Errorf("%v (code %q, %v); want SQLSTATE 57P03, shutdown, transient", err, pgretry.Code(err), pgretry.Classify(err))
		}
		if n != attempts || b.Stats().Failures != failures {
			t.Errorf("%v: %d attempts, %d failures counted; want %d, %d", err, n, b.Stats().Failures, attempts, failures)
		}
	}
	// Not marked: the connection was refused, so nothing of the
	// statement was sent, and it is retried as a marked one is: 3
	// attempts, each a failure.
	_, err := db.Exec(ctx, "SELECT 1")
	check(err, 3, 3)
	if r.n.Load() != 2 {
		t.Errorf("%d retries of an unmarked statement that was never sent; want 2", r.n.Load())
	}
	// Marked: 3 attempts, each a failure.
	_, err = db.Exec(pgretry.WithIdempotent(ctx), "SELECT 1")
	check(err, 3, 6)

	// Marked, on a schedule longer than the recovery: the server is
	// promoted while the statement is retried, and it succeeds.
	db2, r2 := newDB(t, pool, pgretry.Config{
		Breaker: countingBreakers(t),
		Policy:  schedule.Intersect{A: schedule.Spaced{Every: 20 * time.Millisecond}, B: schedule.Times{N: 1500}},
	})
	b2 := db2.Breaker()
	done := make(chan error, 1)
	var one int
	go func() { done <- db2.QueryRow(pgretry.WithIdempotent(ctx), "SELECT 1").Scan(&one) }()
	for deadline := time.Now().Add(10 * time.Second); r2.n.Load() < 2 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if err := s.Promote(); err != nil {
		t.Fatalf("%v\n%s", err, s.Log())
	}
	if err := <-done; err != nil || one != 1 {
		t.Fatalf("marked statement across the promotion: %d, %v; want 1, nil", one, err)
	}
	if n, st := r2.n.Load(), b2.Stats(); n < 2 || st.Failures != uint64(n) || st.Successes != 1 {
		t.Errorf("%d retries, breaker %+v; want at least 2 retries, each a counted failure, then 1 success", n, st)
	}
}

// waitCannotConnect connects to s until the server refuses with SQLSTATE
// 57P03 (it may refuse the TCP connection before its postmaster listens),
// for at most 20 s, and returns that error.
func waitCannotConnect(t *testing.T, s *pgtest.Server) error {
	t.Helper()
	ctx := testCtx(t)
	var last error
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		c, err := pgx.Connect(ctx, s.DSN(""))
		if err == nil {
			c.Close(ctx)
			t.Fatal("the server accepted a connection; want 57P03")
		}
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "57P03" {
			if !strings.Contains(pe.Message, "starting up") && !strings.Contains(pe.Message, "not accepting connections") {
				t.Errorf("57P03 with message %q; want starting up or not accepting connections", pe.Message)
			}
			return err
		}
		last = err
	}
	t.Fatalf("no 57P03 in 20 s; last error %v\n%s", last, s.Log())
	return nil
}

// TestObserver: Config.Options.Observer sees each attempt and the retry
// between them, with the server's host:port as the target and Code as
// the label: a marked statement, a transaction, a statement through
// database/sql (no target), and an unmarked statement that is not
// retried.
func TestObserver(t *testing.T) {
	ctx := testCtx(t)
	s := server(t)
	pool := newPool(t, s, "", nil)
	target := fmt.Sprintf("127.0.0.1:%d", pool.Config().ConnConfig.Port)
	retried := func(target, label string) []retrytest.Seen {
		return []retrytest.Seen{
			{Kind: retry.Attempted, Target: target, Attempt: 1, Label: label},
			{Kind: retry.Retrying, Target: target, Attempt: 1, Label: label},
			{Kind: retry.Attempted, Target: target, Attempt: 2},
			{Kind: retry.Recovered, Target: target, Attempt: 2, Label: label},
		}
	}
	for _, tc := range []struct {
		name string
		// run runs a statement or transaction whose first run fails with
		// the SQLSTATE of failOnce.
		run  func(t *testing.T, o pgretry.Config, failOnce func(state string) string) error
		want []retrytest.Seen
	}{
		{"marked", func(t *testing.T, o pgretry.Config, failOnce func(string) string) error {
			db, _ := newDB(t, pool, o)
			_, err := db.Exec(pgretry.WithIdempotent(ctx), failOnce("40001"))
			return err
		}, retried(target, "serialization_failure")},
		{"tx", func(t *testing.T, o pgretry.Config, failOnce func(string) string) error {
			db, _ := newDB(t, pool, o)
			return db.Tx(ctx, pgx.TxOptions{}, func(tx pgx.Tx) error {
				_, err := tx.Exec(ctx, failOnce("40P01"))
				return err
			})
		}, retried(target, "deadlock")},
		{"sql", func(t *testing.T, o pgretry.Config, failOnce func(string) string) error {
			db, _ := newSQL(t, s, "", true, o)
			_, err := db.ExecContext(pgretry.WithIdempotent(ctx), failOnce("40001"))
			return err
		}, retried("", "serialization_failure")},
		{"unmarked", func(t *testing.T, o pgretry.Config, failOnce func(string) string) error {
			db, _ := newDB(t, pool, o)
			var pe *pgconn.PgError
			if _, err := db.Exec(ctx, failOnce("40001")); !errors.As(err, &pe) || pe.Code != "40001" {
				return fmt.Errorf("unmarked statement: %v; want SQLSTATE 40001, not retried", err)
			}
			return nil
		}, []retrytest.Seen{{Kind: retry.Attempted, Target: target, Attempt: 1, Label: "serialization_failure"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seq := "observed_" + strconv.FormatInt(time.Now().UnixNano(), 36)
			if _, err := pool.Exec(ctx, "CREATE SEQUENCE "+seq); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _, _ = pool.Exec(context.Background(), "DROP SEQUENCE "+seq) })
			// The first run fails with state, the others pass.
			failOnce := func(state string) string {
				return "DO $$ BEGIN IF nextval('" + seq + "') = 1 THEN RAISE EXCEPTION 'first run' USING ERRCODE = '" + state + "'; END IF; END $$"
			}
			var rec retrytest.Recorder
			if err := tc.run(t, pgretry.Config{Options: retry.Options{Observer: &rec}}, failOnce); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, rec.Seen()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}
