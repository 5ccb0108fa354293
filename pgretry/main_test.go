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
	"github.com/recur-go/recur/retry"
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

// retries counts the retries a DB makes, through its
// Config.Options.Observer.
type retries struct{ n atomic.Int64 }

// config returns c with an Observer that counts the retries into r, after
// c's own.
func (r *retries) config(c pgretry.Config) pgretry.Config {
	c.Options.Observer = retry.Observers(c.Options.Observer, retry.ObserverFunc(func(_ context.Context, e retry.Event) {
		if e.Kind == retry.Retrying {
			r.n.Add(1)
		}
	}))
	return c
}

// fastConfig retries at once, 3 attempts in all, so that the tests do
// not wait for backoff, and without the default budget, which every test
// on the shared server would share.
func fastConfig(c pgretry.Config) pgretry.Config {
	if c.Policy == nil {
		c.Policy = schedule.Times{N: 3}
	}
	if c.Budget == nil {
		c.Options.Unthrottled = true
	}
	return c
}

// newDB returns a DB on pool, with a breaker of its own (c.Breaker nil)
// that the test reads through DB.Breaker, and counts its retries.
func newDB(t *testing.T, pool *pgxpool.Pool, c pgretry.Config) (*pgretry.DB, *retries) {
	t.Helper()
	var r retries
	db, err := pgretry.New(pool, r.config(fastConfig(c)))
	if err != nil {
		t.Fatal(err)
	}
	return db, &r
}

// breakers returns a registry that makes its breakers from c.
func breakers(t testing.TB, c breaker.Config) *breaker.Registry {
	t.Helper()
	r, err := breaker.NewRegistry(c, 0)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// countingBreakers is a registry of breakers that count and never open,
// so that a test can read how many failures one recorded.
func countingBreakers(t testing.TB) *breaker.Registry {
	t.Helper()
	return breakers(t, breaker.Config{ConsecutiveFailures: 1 << 20, FailureRate: -1})
}
