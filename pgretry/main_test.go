package pgretry_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/pgretry"
	"github.com/recur-go/recur/pgretry/internal/pgtest"
	"github.com/recur-go/recur/schedule"
	"go.uber.org/goleak"
)

// One server serves the tests that do not stop it; it starts with the
// first test that needs it.
var (
	sharedOnce sync.Once
	sharedSrv  *pgtest.Server
	sharedErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedSrv != nil {
		sharedSrv.Close()
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// server returns the shared server.
func server(tb testing.TB) *pgtest.Server {
	tb.Helper()
	sharedOnce.Do(func() { sharedSrv, sharedErr = pgtest.New() })
	if sharedErr != nil {
		pgtest.Unavailable(tb, sharedErr)
	}
	return sharedSrv
}

// testCtx is a context that bounds one test.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// newPool returns a pool on s, closed when t ends, its connections
// counted (pgretry.Instrument). edit, if not nil, changes its config
// first.
func newPool(t *testing.T, s *pgtest.Server, extra string, edit func(*pgxpool.Config)) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(s.DSN(extra))
	if err != nil {
		t.Fatal(err)
	}
	pgretry.Instrument(cfg.ConnConfig)
	if edit != nil {
		edit(cfg)
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// noPing turns off pgxpool's ping of connections idle for more than a
// second, so that a test sees a dead idle connection as a statement does
// on a busy pool.
func noPing(cfg *pgxpool.Config) {
	cfg.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
}

// retries counts the retries a DB makes, through Options.Retry.OnRetry.
type retries struct{ n atomic.Int64 }

func (r *retries) options(o pgretry.Options) pgretry.Options {
	o.Retry.OnRetry = func(int, error, time.Duration, string) { r.n.Add(1) }
	return o
}

// fastOptions retries at once, 3 attempts in all, so that the tests do
// not wait for backoff, and without the default budget, which every test
// on the shared server would share.
func fastOptions(o pgretry.Options) pgretry.Options {
	if o.Schedule == nil {
		o.Schedule = schedule.Times{N: 3}
	}
	if o.Retry.Budget == nil {
		o.Retry.Unthrottled = true
	}
	return o
}

// newDB returns a DB on pool with a breaker of its own that the test can
// read, and counts its retries.
func newDB(t *testing.T, pool *pgxpool.Pool, o pgretry.Options) (*pgretry.DB, *retries) {
	t.Helper()
	var r retries
	if o.Breaker == nil && !o.NoBreaker {
		b, err := breaker.New(breaker.Config{Name: t.Name()})
		if err != nil {
			t.Fatal(err)
		}
		o.Breaker = b
	}
	db, err := pgretry.New(pool, r.options(fastOptions(o)))
	if err != nil {
		t.Fatal(err)
	}
	return db, &r
}
