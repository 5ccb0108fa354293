package redisretry_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/retry"
	"github.com/redis/go-redis/v9"

	"github.com/recur-go/recur/redisretry"
	"github.com/recur-go/recur/redisretry/internal/redistest"
)

// slack is how much later than its deadline a call may return: a
// scheduler's wake-up and go-redis's bookkeeping on a busy machine.
const slack = 50 * time.Millisecond

// defaultClient is a client made by NewClient from go-redis's default
// options (5 s dial, read and write timeouts, 5 dial attempts), so that
// only the caller's context and AttemptTimeout can bound a call.
func defaultClient(t *testing.T, addr string, c redisretry.Config) *redis.Client {
	t.Helper()
	rdb, err := redisretry.NewClient(&redis.Options{Addr: addr}, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// TestDeadlines: with the server killed (connections refused) and with
// it stopped by SIGSTOP (connections accepted by the kernel, nothing
// answered), a call returns within the caller's deadline or its attempts'
// timeouts, plus slack: never go-redis's own 5 s timeouts.
func TestDeadlines(t *testing.T) {
	type run struct {
		name     string
		c        redisretry.Config
		safe     bool
		deadline time.Duration // the caller's; 0 for none
		bound    time.Duration // when the call must have returned, before slack
	}
	runs := []run{
		{"unmarked-deadline", redisretry.Config{NoBreaker: true}, false, 300 * time.Millisecond, 300 * time.Millisecond},
		{"marked-deadline", redisretry.Config{NoBreaker: true, Policy: parse.MustParse("spaced(20ms) & times(1000)")}, true, 300 * time.Millisecond, 300 * time.Millisecond},
		{"marked-attempt-timeout", redisretry.Config{NoBreaker: true, Policy: parse.MustParse("times(3)"),
			Options: retry.Options{AttemptTimeout: 100 * time.Millisecond}}, true, 0, 300 * time.Millisecond},
		{"marked-both", redisretry.Config{Policy: parse.MustParse("spaced(10ms) & times(1000)"), Breaker: breakers(t, breaker.Config{ConsecutiveFailures: 1000}),
			Options: retry.Options{AttemptTimeout: 80 * time.Millisecond}}, true, 250 * time.Millisecond, 250 * time.Millisecond},
	}
	for _, mode := range []string{"killed", "sigstop"} {
		t.Run(mode, func(t *testing.T) {
			s := redistest.Start(t)
			clients := make([]*redis.Client, len(runs))
			for i, r := range runs {
				clients[i] = defaultClient(t, s.Addr, r.c)
				if err := clients[i].Ping(context.Background()).Err(); err != nil {
					t.Fatal(err) // a pooled connection, so that the stall hits a live one too
				}
			}
			switch mode {
			case "killed":
				s.Kill()
			case "sigstop":
				s.Pause()
				t.Cleanup(s.Resume)
			}
			// Twice: the first call meets the pooled connection, the
			// second a new dial.
			for round := range 2 {
				for i, r := range runs {
					ctx := context.Background()
					if r.safe {
						ctx = redisretry.WithIdempotent(ctx)
					}
					var cancel context.CancelFunc = func() {}
					if r.deadline > 0 {
						ctx, cancel = context.WithTimeout(ctx, r.deadline)
					}
					start := time.Now()
					err := clients[i].Get(ctx, "k").Err()
					took := time.Since(start)
					cancel()
					t.Logf("%s round %d: %v after %v: %v", r.name, round, redisretry.Code(err), took.Round(time.Millisecond), err)
					if err == nil {
						t.Errorf("%s: a GET succeeded with the server %s", r.name, mode)
					}
					if took > r.bound+slack {
						t.Errorf("%s round %d: returned after %v (%v), want at most %v + %v", r.name, round, took, err, r.bound, slack)
					}
				}
			}
		})
	}
}

// TestPoolTimeout: a client whose one connection is busy (a BLPOP holds
// it) fails its other commands with go-redis's pool-acquire timeout:
// local overload, so the breaker counts nothing and a marked command is
// not retried.
func TestPoolTimeout(t *testing.T) {
	s := redistest.Start(t)
	ctx := context.Background()
	var retries int
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1, ContextTimeoutEnabled: true, PoolSize: 1, PoolTimeout: 50 * time.Millisecond})
	t.Cleanup(func() { rdb.Close() })
	h, err := redisretry.Install(rdb, redisretry.Config{
		Policy:  parse.MustParse("times(3)"),
		Breaker: breakers(t, breaker.Config{ConsecutiveFailures: 1}),
		Options: retry.Options{Observer: onRetry(func(error) { retries++ })},
	})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = rdb.BLPop(ctx, 600*time.Millisecond, "nothing").Err() // holds the pool's one connection
	}()
	time.Sleep(100 * time.Millisecond)
	var codes []string
	for _, c := range []context.Context{ctx, redisretry.WithIdempotent(ctx), ctx} {
		codes = append(codes, redisretry.Code(rdb.Get(c, "k").Err()))
	}
	wg.Wait()
	if diff := cmp.Diff([]string{"pool_timeout", "pool_timeout", "pool_timeout"}, codes); diff != "" {
		t.Errorf("codes (-want +got)\n%s", diff)
	}
	st := h.Breaker().Stats()
	if st.State != breaker.Closed || st.Failures != 0 || retries != 0 {
		t.Errorf("after 3 pool timeouts: breaker %v with %d failures, %d retries; want closed, 0, 0", st.State, st.Failures, retries)
	}
	if err := rdb.Get(ctx, "k").Err(); err != redis.Nil {
		t.Errorf("GET once the pool is free: %v, want redis.Nil", err)
	}
}

// TestDoneContextNeverSent: a call whose context is already done, marked
// or not, a pipeline and a transaction among them, reaches neither the
// breaker's count nor Redis: the server's command count does not move.
func TestDoneContextNeverSent(t *testing.T) {
	s := redistest.Start(t)
	admin := s.Admin(t)
	bg := context.Background()
	rdb, h := hooked(t, s.Addr, redisretry.Config{Breaker: breakers(t, breaker.Config{ConsecutiveFailures: 1})})
	if err := rdb.Ping(bg).Err(); err != nil { // a pooled connection, ready to write on
		t.Fatal(err)
	}
	canceled, cancel := context.WithCancel(bg)
	cancel()
	expired, cancel2 := context.WithDeadline(bg, time.Now().Add(-time.Second))
	defer cancel2()
	before := commandCount(t, admin)
	stats := h.Breaker().Stats()
	for _, ctx := range []context.Context{canceled, expired, redisretry.WithIdempotent(canceled), redisretry.WithIdempotent(expired)} {
		if err := rdb.Incr(ctx, "n").Err(); redisretry.Code(err) != redisretry.CodeCanceled {
			t.Errorf("INCR with a done context: %v, want canceled", err)
		}
		p := rdb.Pipeline()
		p.Incr(ctx, "n")
		if _, err := p.Exec(ctx); redisretry.Code(err) != redisretry.CodeCanceled {
			t.Errorf("pipeline with a done context: %v, want canceled", err)
		}
		if _, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error { return p.Incr(ctx, "n").Err() }); redisretry.Code(err) != redisretry.CodeCanceled {
			t.Errorf("transaction with a done context: %v, want canceled", err)
		}
	}
	after := commandCount(t, admin)
	// after counts the INFO that read before.
	if diff := cmp.Diff(before+1, after); diff != "" {
		t.Errorf("commands the server processed (-want +got): %s", diff)
	}
	if n, err := admin.Exists(bg, "n").Result(); err != nil || n != 0 {
		t.Errorf("key n exists %d (%v): an INCR ran", n, err)
	}
	if diff := cmp.Diff(stats, h.Breaker().Stats()); diff != "" {
		t.Errorf("the breaker counted calls with a done context (-before +after):\n%s", diff)
	}
}

// commandCount returns the server's total_commands_processed.
func commandCount(t *testing.T, admin *redis.Client) int64 {
	t.Helper()
	info, err := admin.Info(context.Background(), "stats").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range splitLines(info) {
		var n int64
		if _, err := fmt.Sscanf(line, "total_commands_processed:%d", &n); err == nil {
			return n
		}
	}
	t.Fatalf("no total_commands_processed in %q", info)
	return 0
}
