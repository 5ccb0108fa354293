package pgretry_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/recur-go/recur/pgretry"
	"github.com/recur-go/recur/pgretry/internal/pgtest"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// deadlineSlack is how long past its bound a call may return.
const deadlineSlack = 50 * time.Millisecond

// deadlineCall is one API under a deadline test.
type deadlineCall struct {
	name   string
	marked bool
	query  bool // Query or QueryContext: AttemptTimeout does not apply
	pgx    func(ctx context.Context, db *pgretry.DB) error
	sql    func(ctx context.Context, db *pgretry.SQLDB) error
}

var deadlineCalls = []deadlineCall{
	{name: "Exec", pgx: func(ctx context.Context, db *pgretry.DB) error { _, err := db.Exec(ctx, "SELECT 1"); return err },
		sql: func(ctx context.Context, db *pgretry.SQLDB) error {
			_, err := db.ExecContext(ctx, "SELECT 1")
			return err
		}},
	{name: "Exec marked", marked: true, pgx: func(ctx context.Context, db *pgretry.DB) error {
		_, err := db.Exec(ctx, "SELECT $1::int", 1)
		return err
	},
		sql: func(ctx context.Context, db *pgretry.SQLDB) error {
			_, err := db.ExecContext(ctx, "SELECT $1::int", 1)
			return err
		}},
	{name: "QueryRow marked", marked: true, pgx: func(ctx context.Context, db *pgretry.DB) error { return db.QueryRow(ctx, "SELECT 1").Scan(new(int)) },
		sql: func(ctx context.Context, db *pgretry.SQLDB) error {
			return db.QueryRowContext(ctx, "SELECT 1").Scan(new(int))
		}},
	{name: "Query", query: true, pgx: func(ctx context.Context, db *pgretry.DB) error {
		rows, err := db.Query(ctx, "SELECT 1")
		if err == nil {
			rows.Close()
		}
		return err
	}, sql: func(ctx context.Context, db *pgretry.SQLDB) error {
		rows, err := db.QueryContext(ctx, "SELECT 1")
		if err == nil {
			rows.Close()
		}
		return err
	}},
	{name: "Tx", pgx: func(ctx context.Context, db *pgretry.DB) error {
		return db.Tx(ctx, pgx.TxOptions{}, func(tx pgx.Tx) error { _, err := tx.Exec(ctx, "SELECT 1"); return err })
	}, sql: func(ctx context.Context, db *pgretry.SQLDB) error {
		return db.Tx(ctx, nil, func(tx *pgretry.SQLTx) error { _, err := tx.ExecContext(ctx, "SELECT 1"); return err })
	}},
}

// deadlineResult is what one call under a deadline test did.
type deadlineResult struct {
	name     string
	err      error
	took     time.Duration
	attempts []time.Duration // each attempt's time, from the Observer
	bound    time.Duration   // the call's bound
	each     time.Duration   // each attempt's bound, 0 if none
}

// runDeadlineCalls runs every call of deadlineCalls, through pgx and
// database/sql, on connections opened before (warm) or after (cold) the
// fault that fault starts, under the caller's deadline and under
// each AttemptTimeout of timeouts (0: none, the deadline alone), four at
// a time; stop ends the fault.
func runDeadlineCalls(t *testing.T, s *pgtest.Server, sched schedule.Schedule, timeouts []time.Duration, fault func() (stop func())) []deadlineResult {
	const deadline = 300 * time.Millisecond
	type job struct {
		name           string
		run            func(ctx context.Context) error
		ctxDeadline    time.Duration
		attemptTimeout time.Duration
		obs            *attemptTimes
	}
	var jobs []job
	var closers []func()
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	var warmups []func() error
	for _, c := range deadlineCalls {
		for _, warm := range []bool{true, false} {
			for _, timeout := range timeouts {
				if timeout != 0 && c.query {
					continue
				}
				for _, lib := range []string{"pgx", "sql"} {
					obs := &attemptTimes{}
					o := pgretry.Config{NoBreaker: true, Policy: sched,
						Options: retry.Options{AttemptTimeout: timeout, Unthrottled: true, Observer: obs}}
					name := fmt.Sprintf("%s %s warm=%v attempt-timeout=%v", lib, c.name, warm, timeout)
					j := job{name: name, attemptTimeout: timeout, obs: obs, ctxDeadline: deadline}
					if timeout != 0 {
						j.ctxDeadline = 0
					}
					if lib == "pgx" {
						cfg, err := pgxpool.ParseConfig(s.DSN("pool_max_conns=2"))
						if err != nil {
							t.Fatal(err)
						}
						pgretry.Instrument(cfg.ConnConfig)
						noPing(cfg)
						pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
						if err != nil {
							t.Fatal(err)
						}
						closers = append(closers, pool.Close)
						db, err := pgretry.New(pool, o)
						if err != nil {
							t.Fatal(err)
						}
						if warm {
							warmups = append(warmups, func() error { _, err := pool.Exec(context.Background(), "SELECT 1"); return err })
						}
						call := c.pgx
						j.run = func(ctx context.Context) error { return call(mark(ctx, c.marked), db) }
					} else {
						cfg, err := pgx.ParseConfig(s.DSN(""))
						if err != nil {
							t.Fatal(err)
						}
						pgretry.Instrument(cfg)
						sqlDB := stdlib.OpenDB(*cfg, stdlib.OptionShouldPing(func(context.Context, stdlib.ShouldPingParams) bool { return false }))
						closers = append(closers, func() { sqlDB.Close() })
						db, err := pgretry.WrapSQL(sqlDB, o)
						if err != nil {
							t.Fatal(err)
						}
						if warm {
							warmups = append(warmups, func() error { _, err := sqlDB.ExecContext(context.Background(), "SELECT 1"); return err })
						}
						call := c.sql
						j.run = func(ctx context.Context) error { return call(mark(ctx, c.marked), db) }
					}
					jobs = append(jobs, j)
				}
			}
		}
	}
	for _, w := range warmups {
		if err := w(); err != nil {
			t.Fatal(err)
		}
	}

	stop := fault()
	results := make([]deadlineResult, len(jobs))
	var wg sync.WaitGroup
	// A few at a time: on two busy cores, dozens of calls whose timers
	// fire at the same instant measure the scheduler, not the bound.
	sem := make(chan struct{}, 4)
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			ctx := context.Background()
			bound := 10 * time.Second // a test's safety net, not the bound checked
			if j.ctxDeadline != 0 {
				bound = j.ctxDeadline
			}
			ctx, cancel := context.WithTimeout(ctx, bound)
			defer cancel()
			start := time.Now()
			err := j.run(ctx)
			took := time.Since(start)
			r := deadlineResult{name: j.name, err: err, took: took, attempts: j.obs.all(), bound: j.ctxDeadline, each: j.attemptTimeout}
			if j.attemptTimeout != 0 {
				r.bound = time.Duration(len(r.attempts)) * j.attemptTimeout
			}
			results[i] = r
		}()
	}
	wg.Wait()
	stop()
	return results
}

// mark marks ctx with pgretry.WithIdempotent if marked.
func mark(ctx context.Context, marked bool) context.Context {
	if marked {
		return pgretry.WithIdempotent(ctx)
	}
	return ctx
}

// attemptTimes records how long each attempt took.
type attemptTimes struct {
	mu sync.Mutex
	d  []time.Duration
}

func (a *attemptTimes) Observe(_ context.Context, e retry.Event) {
	if e.Kind == retry.Attempted {
		a.mu.Lock()
		a.d = append(a.d, e.Elapsed)
		a.mu.Unlock()
	}
}

func (a *attemptTimes) all() []time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]time.Duration(nil), a.d...)
}

// checkDeadlines checks that every call failed and returned within its
// bound and deadlineSlack, and each attempt within its own.
func checkDeadlines(t *testing.T, results []deadlineResult) {
	t.Helper()
	var worst time.Duration
	for _, r := range results {
		if r.err == nil {
			t.Errorf("%s: succeeded; want an error", r.name)
		}
		if r.took > r.bound+deadlineSlack {
			t.Errorf("%s: returned after %v (attempts %v); want within %v + %v: %v", r.name, r.took, r.attempts, r.bound, deadlineSlack, r.err)
		}
		for i, d := range r.attempts {
			if r.each != 0 && d > r.each+deadlineSlack {
				t.Errorf("%s: attempt %d took %v; want within %v + %v", r.name, i+1, d, r.each, deadlineSlack)
			}
		}
		if over := r.took - r.bound; over > worst {
			worst = over
		}
	}
	t.Logf("%d calls; the latest returned %v after its bound", len(results), worst.Round(time.Millisecond))
}

// TestDeadlineFrozen: a server that hangs (SIGSTOP). Every call, on a
// pooled connection or a new one, returns within the caller's deadline,
// or within AttemptTimeout per attempt, and deadlineSlack.
func TestDeadlineFrozen(t *testing.T) {
	s := pgtest.Start(t)
	var thaw func() error
	t.Cleanup(func() {
		if thaw != nil {
			thaw()
		}
	})
	results := runDeadlineCalls(t, s, schedule.Times{N: 3}, []time.Duration{0, 200 * time.Millisecond}, func() func() {
		var err error
		if thaw, err = s.Freeze(); err != nil {
			t.Fatal(err)
		}
		return func() {
			if err := thaw(); err != nil {
				t.Error(err)
			}
			thaw = nil
		}
	})
	for _, r := range results {
		t.Logf("%s: %v after %v, attempts %v", r.name, pgretry.Code(r.err), r.took.Round(time.Millisecond), r.attempts)
	}
	checkDeadlines(t, results)
}

// TestDeadlineStopped: a stopped server refuses every connection, so
// nothing is sent and even an unmarked statement is retried, on a
// schedule without end: the caller's deadline ends it.
func TestDeadlineStopped(t *testing.T) {
	s := pgtest.Start(t)
	results := runDeadlineCalls(t, s, schedule.Spaced{Every: 20 * time.Millisecond}, []time.Duration{0}, func() func() {
		if err := s.Stop(); err != nil {
			t.Fatal(err)
		}
		return func() {}
	})
	for _, r := range results {
		t.Logf("%s: %v after %v, %d attempts", r.name, pgretry.Code(r.err), r.took.Round(time.Millisecond), len(r.attempts))
	}
	checkDeadlines(t, results)
}
