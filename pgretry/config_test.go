package pgretry_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/pgretry"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// TestNewErrors: every inconsistent Config is an error from New and
// WrapSQL, before any statement, an Options that sets what the DB sets
// for each call (Target, Breaker, Budget) included; the zero Config has a
// breaker.
func TestNewErrors(t *testing.T) {
	// pgxpool.New and stdlib.OpenDB connect lazily: no server is needed.
	pool, err := pgxpool.New(t.Context(), "host=127.0.0.1 port=1 sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	cc, err := pgx.ParseConfig("host=127.0.0.1 port=1 sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	sqlDB := stdlib.OpenDB(*cc)
	defer sqlDB.Close()
	b, err := breaker.New(breaker.Config{})
	if err != nil {
		t.Fatal(err)
	}
	bucket, err := budget.NewTokenBucket(budget.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	breakers := breakers(t, breaker.Config{})
	budgets, err := budget.NewRegistry(budget.DefaultConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		c    pgretry.Config
		want string
	}{
		{"invalid policy", pgretry.Config{Policy: schedule.Times{N: -1}}, "invalid Config.Policy"},
		{"invalid tx policy", pgretry.Config{TxPolicy: schedule.Exponential{}}, "invalid Config.TxPolicy"},
		{"breaker and none", pgretry.Config{Breaker: breakers, NoBreaker: true}, "both Breaker and NoBreaker"},
		{"budget and unthrottled", pgretry.Config{Budget: budgets, Options: retry.Options{Unthrottled: true}}, "both Budget and Options.Unthrottled"},
		{"negative timeout", pgretry.Config{Options: retry.Options{AttemptTimeout: -time.Second}}, "negative Options.AttemptTimeout"},
		{"negative pushback", pgretry.Config{Options: retry.Options{MaxPushback: -time.Second}}, "negative Options.MaxPushback"},
		{"options target", pgretry.Config{Options: retry.Options{Target: "elsewhere:5432"}}, "Options.Target is set"},
		{"options breaker", pgretry.Config{Options: retry.Options{Breaker: b}}, "Options.Breaker is set"},
		{"options budget", pgretry.Config{Options: retry.Options{Budget: bucket}}, "Options.Budget is set"},
	} {
		if _, err := pgretry.New(pool, tt.c); err == nil || !strings.HasPrefix(err.Error(), "pgretry: ") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New with %s: %v; want a pgretry error containing %q", tt.name, err, tt.want)
		}
		if _, err := pgretry.WrapSQL(sqlDB, tt.c); err == nil || !strings.HasPrefix(err.Error(), "pgretry: ") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("WrapSQL with %s: %v; want a pgretry error containing %q", tt.name, err, tt.want)
		}
	}
	if _, err := pgretry.New(nil, pgretry.Config{}); err == nil {
		t.Error("New(nil pool): nil error")
	}
	if _, err := pgretry.WrapSQL(nil, pgretry.Config{}); err == nil {
		t.Error("WrapSQL(nil): nil error")
	}
	db, err := pgretry.New(pool, pgretry.Config{})
	if err != nil || db.Breaker() == nil {
		t.Errorf("New with the zero Config: breaker %v, %v; want a breaker", db.Breaker(), err)
	}
	db, err = pgretry.New(pool, pgretry.Config{NoBreaker: true})
	if err != nil || db.Breaker() != nil {
		t.Errorf("New with NoBreaker: breaker %v, %v; want none", db.Breaker(), err)
	}
	if err := db.Tx(t.Context(), pgx.TxOptions{}, nil); err == nil {
		t.Error("Tx with a nil function: nil error")
	}
	sdb, err := pgretry.WrapSQL(sqlDB, pgretry.Config{NoBreaker: true})
	if err != nil || sdb.Breaker() != nil {
		t.Errorf("WrapSQL with NoBreaker: breaker %v, %v; want none", sdb.Breaker(), err)
	}
}

// TestConfigRegistries: without a Breaker, each DB and SQLDB has a
// default breaker of its own, named by its target (the pool's host:port,
// or pgretry.SQLTarget); with Breaker and Budget registries, the DBs on
// one target share that target's breaker and budget, an SQLDB takes
// SQLTarget's, and every call goes through them.
func TestConfigRegistries(t *testing.T) {
	ctx := testCtx(t)
	ports := []int{deadPort(t), deadPort(t)}
	pools := make([]*pgxpool.Pool, len(ports))
	targets := make([]string, len(ports))
	for i, port := range ports {
		pool, err := pgxpool.New(ctx, fmt.Sprintf("host=127.0.0.1 port=%d sslmode=disable", port))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		pools[i], targets[i] = pool, fmt.Sprintf("127.0.0.1:%d", port)
	}
	cc, err := pgx.ParseConfig(fmt.Sprintf("host=127.0.0.1 port=%d sslmode=disable", ports[0]))
	if err != nil {
		t.Fatal(err)
	}
	sqlDB := stdlib.OpenDB(*cc)
	t.Cleanup(func() { sqlDB.Close() })

	own, err := pgretry.New(pools[0], pgretry.Config{})
	if err != nil {
		t.Fatal(err)
	}
	own2, err := pgretry.New(pools[0], pgretry.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ownSQL, err := pgretry.WrapSQL(sqlDB, pgretry.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if own.Breaker() == own2.Breaker() {
		t.Error("two DBs without a Breaker registry share a breaker; want one each")
	}
	got := []string{own.Breaker().Name(), ownSQL.Breaker().Name()}
	if diff := cmp.Diff([]string{targets[0], pgretry.SQLTarget}, got); diff != "" {
		t.Errorf("default breakers' names (-want +got):\n%s", diff)
	}

	bs := countingBreakers(t)
	budgets, err := budget.NewRegistry(budget.DefaultConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	c := pgretry.Config{Policy: schedule.Times{N: 1}, Breaker: bs, Budget: budgets}
	var dbs []*pgretry.DB
	for _, pool := range []*pgxpool.Pool{pools[0], pools[0], pools[1]} {
		db, err := pgretry.New(pool, c)
		if err != nil {
			t.Fatal(err)
		}
		dbs = append(dbs, db)
	}
	sdb, err := pgretry.WrapSQL(sqlDB, c)
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range []*breaker.Breaker{dbs[0].Breaker(), dbs[1].Breaker(), dbs[2].Breaker(), sdb.Breaker()} {
		if want := bs.Get([]string{targets[0], targets[0], targets[1], pgretry.SQLTarget}[i]); b != want {
			t.Errorf("breaker %d is %q; want the registry's %q", i, b.Name(), want.Name())
		}
	}
	for _, db := range dbs {
		if _, err := db.Exec(ctx, "SELECT 1"); err == nil {
			t.Fatal("a statement on a refused connection succeeded")
		}
	}
	if _, err := sdb.ExecContext(ctx, "SELECT 1"); err == nil {
		t.Fatal("a statement on a refused connection succeeded")
	}
	type counts struct{ Failures, Requests uint64 }
	seen := map[string]counts{}
	for target, b := range bs.All() {
		seen[target] = counts{Failures: b.Stats().Failures, Requests: budgets.Get(target).Stats().Requests}
	}
	want := map[string]counts{targets[0]: {2, 2}, targets[1]: {1, 1}, pgretry.SQLTarget: {1, 1}}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("failures and calls per target (-want +got):\n%s", diff)
	}
	var named []string
	for target := range budgets.All() {
		named = append(named, target)
	}
	if diff := cmp.Diff(slices.Sorted(maps.Keys(want)), named); diff != "" {
		t.Errorf("budgets' targets (-want +got):\n%s", diff)
	}
}
