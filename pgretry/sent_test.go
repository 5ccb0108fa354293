package pgretry_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/pgretry"
	"github.com/recur-go/recur/pgretry/internal/cut"
	"github.com/recur-go/recur/retry"
)

// deadPort returns a port of 127.0.0.1 that nothing listens on.
func deadPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// TestRefusedRetried: a statement whose connection was refused (a port
// of the test server's host where nothing listens) was never sent, so
// it is retried even when it is not marked, as a marked one is; through
// pgx and database/sql, a statement and a transaction, on a pool whose
// configuration went through Instrument and on one that did not.
func TestRefusedRetried(t *testing.T) {
	s := server(t)
	ctx := testCtx(t)
	port := deadPort(t)
	type result struct {
		Attempts int
		Refused  bool
		Code     string
	}
	calls := map[string]func(instrument bool) error{
		"pgx Exec": func(instrument bool) error {
			_, err := refusedDB(t, s.DSN(""), port, instrument).Exec(ctx, "INSERT INTO nowhere VALUES (1)")
			return err
		},
		"pgx Tx": func(instrument bool) error {
			return refusedDB(t, s.DSN(""), port, instrument).Tx(ctx, pgx.TxOptions{}, func(pgx.Tx) error { return nil })
		},
		"sql ExecContext": func(instrument bool) error {
			_, err := refusedSQL(t, s.DSN(""), port, instrument).ExecContext(ctx, "INSERT INTO nowhere VALUES (1)")
			return err
		},
		"sql Tx": func(instrument bool) error {
			return refusedSQL(t, s.DSN(""), port, instrument).Tx(ctx, nil, func(*pgretry.SQLTx) error { return nil })
		},
	}
	want, got := map[string]result{}, map[string]result{}
	for name, call := range calls {
		for _, instrument := range []bool{true, false} {
			key := fmt.Sprintf("%s instrumented=%v", name, instrument)
			err := call(instrument)
			var re *retry.Error
			r := result{Attempts: 1, Refused: errors.Is(err, syscall.ECONNREFUSED), Code: pgretry.Code(err)}
			if errors.As(err, &re) {
				r.Attempts = re.Attempts
			}
			got[key] = r
			want[key] = result{Attempts: 3, Refused: true, Code: "unreachable"}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("unmarked calls on a refused connection (-want +got):\n%s", diff)
	}
}

func refusedDB(t *testing.T, dsn string, port int, instrument bool) *pgretry.DB {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.Port = uint16(port)
	if instrument {
		pgretry.Instrument(cfg.ConnConfig)
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	db, err := pgretry.New(pool, fastConfig(pgretry.Config{NoBreaker: true}))
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func refusedSQL(t *testing.T, dsn string, port int, instrument bool) *pgretry.SQLDB {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Port = uint16(port)
	if instrument {
		pgretry.Instrument(cfg)
	}
	sqlDB := stdlib.OpenDB(*cfg)
	t.Cleanup(func() { sqlDB.Close() })
	db, err := pgretry.WrapSQL(sqlDB, fastConfig(pgretry.Config{NoBreaker: true}))
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// proxied returns a pool of one connection to s through a cutting proxy,
// its connections counted if instrument, and the proxy.
func proxied(t *testing.T, dsn string, instrument bool) (*pgxpool.Pool, *cut.Proxy) {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	p, err := cut.Listen(net.JoinHostPort(cfg.ConnConfig.Host, strconv.Itoa(int(cfg.ConnConfig.Port))))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	cfg.ConnConfig.Port = uint16(p.Port())
	cfg.MaxConns = 1
	if instrument {
		pgretry.Instrument(cfg.ConnConfig)
	}
	noPing(cfg)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool, p
}

// TestNotInstrumented: on a pool whose configuration did not go through
// Instrument, pgretry cannot see whether a statement's bytes were
// written, so an unmarked statement that failed on a connection is not
// retried, even when nothing was sent; a marked one is.
func TestNotInstrumented(t *testing.T) {
	s := server(t)
	ctx := testCtx(t)
	for _, marked := range []bool{false, true} {
		pool, p := proxied(t, s.DSN(""), false)
		db, r := newDB(t, pool, pgretry.Config{NoBreaker: true})
		if _, err := pool.Exec(ctx, "SELECT 1"); err != nil {
			t.Fatal(err)
		}
		p.Arm(cut.Rule{At: cut.Idle, RST: true})
		time.Sleep(20 * time.Millisecond)
		_, err := db.Exec(mark(ctx, marked), "SELECT 1")
		want := map[bool]int64{false: 0, true: 1}[marked]
		if n := r.n.Load(); n != want || (err == nil) != marked {
			t.Errorf("marked=%v: %v after %d retries; want %d retries (and success if marked)", marked, err, n, want)
		}
	}
}

// TestMarkedRetriedAfterSend: a marked statement whose answer was lost
// is retried: the caller said it may run twice. An upsert does.
func TestMarkedRetriedAfterSend(t *testing.T) {
	s := server(t)
	ctx := testCtx(t)
	admin := newPool(t, s, "", nil)
	exec(t, admin, "DROP TABLE IF EXISTS upserts", "CREATE TABLE upserts (id int PRIMARY KEY, n int NOT NULL)")
	pool, p := proxied(t, s.DSN(""), true)
	db, r := newDB(t, pool, pgretry.Config{NoBreaker: true})
	if _, err := pool.Exec(ctx, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	p.Arm(cut.Rule{At: cut.AfterSend, Match: matcher("stmt")})
	_, err := db.Exec(pgretry.WithIdempotent(ctx), "INSERT INTO upserts VALUES ($1, 1) ON CONFLICT (id) DO UPDATE SET n = upserts.n + 1", 7)
	var n int
	if err := admin.QueryRow(ctx, "SELECT n FROM upserts WHERE id = 7").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if err != nil || r.n.Load() != 1 || n != 2 || !p.Fired() {
		t.Errorf("marked upsert cut after it ran: %v after %d retries, ran %d times; want nil after 1 retry, ran twice", err, r.n.Load(), n)
	}
}

// TestDoneContext: a call whose context is already done returns at once
// with the context's error and reaches neither the pool's connection nor
// the server: no attempt is made (package retry does not call the
// operation), no connection is opened, no byte is sent.
func TestDoneContext(t *testing.T) {
	s := server(t)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()

	for _, tt := range []struct {
		name string
		ctx  context.Context
		want error
	}{{"canceled", canceled, context.Canceled}, {"expired", expired, context.DeadlineExceeded}} {
		for _, warm := range []bool{false, true} {
			pool, p := proxied(t, s.DSN(""), true)
			obs := &attemptTimes{}
			db, err := pgretry.New(pool, fastConfig(pgretry.Config{Options: retry.Options{Observer: obs}}))
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := pgx.ParseConfig(s.DSN(""))
			if err != nil {
				t.Fatal(err)
			}
			cfg.Port = uint16(p.Port())
			pgretry.Instrument(cfg)
			sqlDB := stdlib.OpenDB(*cfg)
			t.Cleanup(func() { sqlDB.Close() })
			sdb, err := pgretry.WrapSQL(sqlDB, fastConfig(pgretry.Config{Options: retry.Options{Observer: obs}}))
			if err != nil {
				t.Fatal(err)
			}
			if warm {
				if _, err := pool.Exec(context.Background(), "SELECT 1"); err != nil {
					t.Fatal(err)
				}
				if _, err := sqlDB.Exec("SELECT 1"); err != nil {
					t.Fatal(err)
				}
			}
			conns, sent := p.Conns(), p.Sent()
			ctx := tt.ctx
			calls := map[string]func() error{
				"Exec":            func() error { _, err := db.Exec(ctx, "SELECT 1"); return err },
				"Exec marked":     func() error { _, err := db.Exec(pgretry.WithIdempotent(ctx), "SELECT 1"); return err },
				"Query":           func() error { _, err := db.Query(ctx, "SELECT 1"); return err },
				"QueryRow":        func() error { return db.QueryRow(ctx, "SELECT 1").Scan(new(int)) },
				"Tx":              func() error { return db.Tx(ctx, pgx.TxOptions{}, func(pgx.Tx) error { return nil }) },
				"ExecContext":     func() error { _, err := sdb.ExecContext(ctx, "SELECT 1"); return err },
				"QueryContext":    func() error { _, err := sdb.QueryContext(ctx, "SELECT 1"); return err },
				"QueryRowContext": func() error { return sdb.QueryRowContext(ctx, "SELECT 1").Scan(new(int)) },
				"SQL Tx":          func() error { return sdb.Tx(ctx, nil, func(*pgretry.SQLTx) error { return nil }) },
			}
			for name, call := range calls {
				start := time.Now()
				err := call()
				if took := time.Since(start); !errors.Is(err, tt.want) || took > 50*time.Millisecond {
					t.Errorf("%s, warm=%v: %s: %v after %v; want %v at once", tt.name, warm, name, err, took, tt.want)
				}
			}
			if n := len(obs.all()); n != 0 {
				t.Errorf("%s, warm=%v: %d attempts; want none", tt.name, warm, n)
			}
			if c, b := p.Conns()-conns, p.Sent()-sent; c != 0 || b != 0 {
				t.Errorf("%s, warm=%v: %d connections opened, %d bytes sent; want none", tt.name, warm, c, b)
			}
		}
	}
}

// TestTxContextEndsInFn: the context ends while the transaction function
// runs. The COMMIT is never sent (pgx and database/sql refuse a done
// context before a byte of it is written; pgx's Terminate as it closes
// the connection is not the COMMIT's), so the error is the context's (or
// database/sql's ErrTxDone, when its own rollback came first), not
// ErrCommitUnknown, and nothing is committed.
func TestTxContextEndsInFn(t *testing.T) {
	s := server(t)
	admin := newPool(t, s, "", nil)
	exec(t, admin, "DROP TABLE IF EXISTS ends_in_fn", "CREATE TABLE ends_in_fn (lib text NOT NULL)")
	db, _ := newDB(t, newPool(t, s, "", nil), pgretry.Config{})
	sdb, _ := newSQL(t, s, "", true, pgretry.Config{})
	type result struct {
		Failed, Unknown bool
		Rows            int
	}
	got := map[string]result{}
	for _, lib := range []string{"pgx", "sql"} {
		ctx, cancel := context.WithCancel(context.Background())
		var err error
		if lib == "pgx" {
			err = db.Tx(ctx, pgx.TxOptions{}, func(tx pgx.Tx) error {
				_, err := tx.Exec(ctx, "INSERT INTO ends_in_fn VALUES ($1)", lib)
				cancel()
				return err
			})
		} else {
			err = sdb.Tx(ctx, nil, func(tx *pgretry.SQLTx) error {
				_, err := tx.ExecContext(ctx, "INSERT INTO ends_in_fn VALUES ($1)", lib)
				cancel()
				return err
			})
		}
		var n int
		if err := admin.QueryRow(context.Background(), "SELECT count(*) FROM ends_in_fn WHERE lib = $1", lib).Scan(&n); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %v", lib, err)
		got[lib] = result{Failed: err != nil, Unknown: errors.Is(err, pgretry.ErrCommitUnknown), Rows: n}
	}
	want := map[string]result{"pgx": {Failed: true}, "sql": {Failed: true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("a transaction whose context ended in its function (-want +got):\n%s", diff)
	}
}

// A hundred unmarked statements against a database that refuses every
// connection, with nothing configured but a virtual clock, make 103
// attempts where the default policy alone would make 300: the target's
// shared default budget (gRFC A6's 10 tokens) allows three retries before
// it is half empty. With the default breaker on as well, fewer still:
// it opens after five failures and refuses the rest without an attempt.
// Unthrottled, with no breaker, is the policy alone.
func TestDeadTargetThrottledByDefault(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    pgretry.Config
		most int
	}{
		{"no breaker", pgretry.Config{NoBreaker: true}, 103},
		{"default", pgretry.Config{}, 103},
		{"unthrottled", pgretry.Config{NoBreaker: true, Options: retry.Options{Unthrottled: true}}, 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := pgxpool.ParseConfig(fmt.Sprintf("postgres://recur@127.0.0.1:%d/none?connect_timeout=5", deadPort(t)))
			if err != nil {
				t.Fatal(err)
			}
			pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(pool.Close)
			attempts := 0
			o := tc.o
			o.Options.Caps = retry.Caps{Clock: clockcap.Virtual(time.Now())}
			o.Options.Observer = retry.ObserverFunc(func(_ context.Context, e retry.Event) {
				if e.Kind == retry.Attempted {
					attempts++
				}
			})
			db, err := pgretry.New(pool, o)
			if err != nil {
				t.Fatal(err)
			}
			for range 100 {
				if _, err := db.Exec(context.Background(), "INSERT INTO nowhere VALUES (1)"); err == nil {
					t.Fatal("a statement on a refused connection succeeded")
				}
			}
			t.Logf("100 statements, %d attempts", attempts)
			if attempts > tc.most || tc.name != "default" && attempts != tc.most {
				t.Errorf("100 statements made %d attempts; want %d", attempts, tc.most)
			}
		})
	}
}
