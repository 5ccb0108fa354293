package pgretry_test

import (
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/pgretry"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/verdict"
)

// TestFailuresCounted: too many connections (53300) and an attempt
// timeout count against the breaker. A marked statement is retried on
// retry.DefaultSchedule, 3 attempts in all; an unmarked one is retried only
// when nothing of it was sent: the refused connection (53300) is, the
// statement that timed out on the server is not.
func TestFailuresCounted(t *testing.T) {
	s := server(t)
	ctx := testCtx(t)
	admin := newPool(t, s, "", nil)
	exec(t, admin, "DROP ROLE IF EXISTS nobody_may_connect", "CREATE ROLE nobody_may_connect LOGIN CONNECTION LIMIT 0")

	for _, tt := range []struct {
		name, extra, sql string
		timeout          time.Duration
		code, sqlstate   string
		unmarked         int // attempts of the unmarked statement
	}{
		{"too many connections", "user=nobody_may_connect", "SELECT 1", 0, "too_many_connections", "53300", 3},
		{"attempt timeout", "", "SELECT pg_sleep(5)", 100 * time.Millisecond, "attempt_timeout", "", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pool := newPool(t, s, tt.extra, nil)
			db, err := pgretry.New(pool, pgretry.Config{Breaker: breakers(t, breaker.Config{ConsecutiveFailures: 10}),
				Options: retry.Options{AttemptTimeout: tt.timeout, Unthrottled: true}})
			if err != nil {
				t.Fatal(err)
			}
			b := db.Breaker()
			check := func(err error, attempts int, failures uint64) {
				t.Helper()
				n := 1
				var re *retry.Error
				if errors.As(err, &re) {
					n = re.Attempts
				}
				if pgretry.Code(err) != tt.code || n != attempts || b.Stats().Failures != failures {
					t.Errorf("%v: code %q after %d attempts, %d failures counted; want %s after %d, %d", err, pgretry.Code(err), n, b.Stats().Failures, tt.code, attempts, failures)
				}
				var pe *pgconn.PgError
				if tt.sqlstate != "" && (!errors.As(err, &pe) || pe.Code != tt.sqlstate) {
					t.Errorf("%v: want SQLSTATE %s", err, tt.sqlstate)
				}
			}
			_, err = db.Exec(pgretry.WithIdempotent(ctx), tt.sql)
			check(err, 3, 3)
			if pgretry.Classify(err) != verdict.Transient {
				t.Errorf("%v is %v; want transient", err, pgretry.Classify(err))
			}
			_, err = db.Exec(ctx, tt.sql)
			check(err, tt.unmarked, uint64(3+tt.unmarked))
		})
	}
}
