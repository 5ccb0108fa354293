package pgretry_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/recur-go/recur/pgretry"
	"github.com/recur-go/recur/pgretry/internal/pgtest"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

// TestCrashShutdown kills one backend with SIGKILL, as the kernel's OOM
// killer would. The postmaster then ends every other backend and runs
// crash recovery; each of them tells its client "terminating connection
// because of crash of another server process", SQLSTATE 57P02, and
// closes the connection.
//
// PostgreSQL sends that message as a WARNING notice, not as an error
// (quickdie in postgres.c uses WARNING_CLIENT_ONLY), so pgx hands it to
// ConnConfig.OnNotice and the statement fails on the closed connection
// instead: "conn closed" or an EOF (unreachable; not_sent if no byte of
// the statement was written, the connection having been reset). While
// recovery runs, a new connection is refused with 57P03 (shutdown), for a
// time too short to hold; TestCannotConnectNow covers 57P03. The rule for
// a 57P02 error is unit-tested in TestClassify. What this test checks is
// what a client sees: every attempt that the crash breaks is a failure
// that the breaker counts, and a marked statement is retried until
// recovery ends and then succeeds.
func TestCrashShutdown(t *testing.T) {
	s := pgtest.Start(t)
	ctx := testCtx(t)
	var nt notices
	const conns = 4
	// No ping of idle connections, so that statements meet the dead ones.
	pool := newPool(t, s, fmt.Sprintf("pool_max_conns=%d", conns), func(cfg *pgxpool.Config) {
		noPing(cfg)
		nt.edit(cfg)
	})
	pids := warmAll(t, pool, conns)

	victim, err := pgx.Connect(ctx, s.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if err := victim.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	victim.Close(ctx)
	// The postmaster ends the pool's backends: wait until they are gone.
	for _, p := range pids {
		for deadline := time.Now().Add(10 * time.Second); syscall.Kill(int(p), 0) == nil; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("backend %d still alive 10 s after the crash\n%s", p, s.Log())
			}
		}
	}

	// Not marked, one attempt: it meets a dead connection; a failure.
	db1, err := pgretry.New(pool, pgretry.Config{Breaker: countingBreakers(t), Policy: schedule.Times{N: 1}})
	if err != nil {
		t.Fatal(err)
	}
	b1 := db1.Breaker()
	_, err = db1.Exec(ctx, "SELECT 1")
	t.Logf("the unmarked statement: %v (%s)", err, pgretry.Code(err))
	crashFailure(t, err)
	if st := b1.Stats(); st.Failures != 1 || st.Successes != 0 {
		t.Errorf("breaker %+v after the failed statement; want 1 failure", st)
	}

	// Marked, on a schedule longer than the recovery: retried over the
	// other dead connections and through the recovery, then it succeeds.
	var mu sync.Mutex
	var failed []error
	db2, err := pgretry.New(pool, pgretry.Config{
		Breaker: countingBreakers(t),
		Policy:  schedule.Intersect{A: schedule.Spaced{Every: 20 * time.Millisecond}, B: schedule.Times{N: 1500}},
		Options: retry.Options{Unthrottled: true, Observer: retry.ObserverFunc(func(_ context.Context, e retry.Event) {
			if e.Kind != retry.Retrying {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			failed = append(failed, e.Err)
		})},
	})
	if err != nil {
		t.Fatal(err)
	}
	b2 := db2.Breaker()
	var one int
	if err := db2.QueryRow(pgretry.WithIdempotent(ctx), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("marked statement across the crash: %d, %v; want 1, nil\n%s", one, err, s.Log())
	}
	mu.Lock()
	defer mu.Unlock()
	codes := make([]string, len(failed))
	for i, err := range failed {
		crashFailure(t, err)
		codes[i] = pgretry.Code(err)
	}
	t.Logf("the marked statement's failed attempts: %v", codes)
	// conns-1 dead connections were left in the pool.
	if len(failed) < conns-1 {
		t.Errorf("%d retries; want at least %d, one per dead connection", len(failed), conns-1)
	}
	if st := b2.Stats(); st.Failures != uint64(len(failed)) || st.Successes != 1 {
		t.Errorf("breaker %+v after %d failed attempts and a success; want each counted", st, len(failed))
	}
	if !nt.has("57P02") {
		t.Errorf("notices %v; want 57P02 from the backends the crash ended", nt.all())
	}
}

// crashFailure checks that err, from an attempt that a crash of the
// server broke, is a failure: a closed connection, or 57P02/57P03.
func crashFailure(t *testing.T, err error) {
	t.Helper()
	code := pgretry.Code(err)
	var pe *pgconn.PgError
	switch {
	case pgretry.Classify(err) != verdict.Transient:
		t.Errorf("%v (code %q) is %v; want transient, a failure", err, code, pgretry.Classify(err))
	case !slices.Contains([]string{"not_sent", "unreachable", "shutdown"}, code):
		t.Errorf("%v: code %q; want not_sent, unreachable or shutdown", err, code)
	case code == "shutdown" && (!errors.As(err, &pe) || (pe.Code != "57P02" && pe.Code != "57P03")):
		t.Errorf("%v: shutdown; want SQLSTATE 57P02 or 57P03", err)
	}
}

// warmAll opens n connections in pool and leaves them idle; it returns
// their backends' process ids.
func warmAll(t *testing.T, pool *pgxpool.Pool, n int) []uint32 {
	t.Helper()
	ctx := testCtx(t)
	var pids []uint32
	var held []*pgxpool.Conn
	defer func() {
		for _, c := range held {
			c.Release()
		}
	}()
	for range n {
		c, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		pids = append(pids, c.Conn().PgConn().PID())
	}
	return pids
}

// notices records the SQLSTATEs of the notices that a pool's connections
// receive.
type notices struct {
	mu    sync.Mutex
	codes []string
}

func (n *notices) edit(cfg *pgxpool.Config) {
	cfg.ConnConfig.OnNotice = func(_ *pgconn.PgConn, nt *pgconn.Notice) {
		n.mu.Lock()
		defer n.mu.Unlock()
		n.codes = append(n.codes, nt.Code)
	}
}

func (n *notices) has(code string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Contains(n.codes, code)
}

func (n *notices) all() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.codes)
}
