package redisretry_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/retry/retrytest"
	"github.com/recur-go/recur/verdict"
	"github.com/redis/go-redis/v9"

	"github.com/recur-go/recur/redisretry"
	"github.com/recur-go/recur/redisretry/internal/redistest"
)

// counted is a script that counts its runs in KEYS[1] and answers with
// the error reply ARGV[1]: the way to have a real server send LOADING,
// MASTERDOWN, CLUSTERDOWN or TRYAGAIN on demand.
const counted = `redis.call('INCR', KEYS[1]); return redis.error_reply(ARGV[1])`

// outcome is what one rule's command came to.
type outcome struct {
	Code     string
	Verdict  verdict.Verdict
	Attempts int64 // runs counted on the server, for the script rows
}

// newClient makes a client for s with the hook, no waits between
// attempts and no breaker unless b is set.
func newClient(t testing.TB, addr string, c redisretry.Config) *redis.Client {
	t.Helper()
	if c.Policy == nil {
		c.Policy = parse.MustParse("times(3)")
	}
	if c.Options.Budget == nil {
		c.Options.Unthrottled = true // the tests count attempts, which the process's shared budget would cut
	}
	rdb, err := redisretry.NewClient(&redis.Options{Addr: addr, DialTimeout: 200 * time.Millisecond, ReadTimeout: 500 * time.Millisecond}, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// breakers returns a breaker registry made from c.
func breakers(t testing.TB, c breaker.Config) *breaker.Registry {
	t.Helper()
	r, err := breaker.NewRegistry(c, 0)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// onRetry returns an Observer that calls f with the error of each attempt
// the runner retries, before its wait.
func onRetry(f func(err error)) retry.Observer {
	return retry.ObserverFunc(func(_ context.Context, e retry.Event) {
		if e.Kind == retry.Retrying {
			f(e.Err)
		}
	})
}

// hooked makes a client with MaxRetries -1 and installs the hook on it.
func hooked(t testing.TB, addr string, c redisretry.Config) (*redis.Client, *redisretry.Hook) {
	t.Helper()
	if c.Policy == nil {
		c.Policy = parse.MustParse("times(3)")
	}
	if c.Options.Budget == nil {
		c.Options.Unthrottled = true // the tests count attempts, which the process's shared budget would cut
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, ContextTimeoutEnabled: true, DialTimeout: 200 * time.Millisecond, ReadTimeout: 500 * time.Millisecond})
	t.Cleanup(func() { rdb.Close() })
	h, err := redisretry.Install(rdb, c)
	if err != nil {
		t.Fatal(err)
	}
	return rdb, h
}

// TestServerReplies runs each server-side rule against the real server:
// a command marked idempotent that fails with a failure reply is sent three
// times, one with any other reply once.
func TestServerReplies(t *testing.T) {
	s := redistest.Start(t)
	admin := s.Admin(t)
	ctx := context.Background()
	if err := admin.LPush(ctx, "list", "x").Err(); err != nil {
		t.Fatal(err)
	}
	rdb := newClient(t, s.Addr, redisretry.Config{NoBreaker: true})
	safe := redisretry.WithIdempotent(ctx)
	for _, tc := range []struct {
		name string
		run  func(key string) error
		want outcome
	}{
		{"nil", func(string) error { return rdb.Get(safe, "missing").Err() }, outcome{"nil", verdict.Success, 0}},
		{"WRONGTYPE", func(string) error { return rdb.Get(safe, "list").Err() }, outcome{"WRONGTYPE", verdict.Neutral, 0}},
		{"syntax", func(string) error { return rdb.Do(safe, "SET", "k").Err() }, outcome{"ERR", verdict.Neutral, 0}},
		{"script", func(key string) error {
			return rdb.Eval(safe, `redis.call('INCR', KEYS[1]); return redis.call('NOSUCHCMD')`, []string{key}).Err()
		}, outcome{"ERR", verdict.Neutral, 1}},
		{"NOSCRIPT", func(string) error {
			return rdb.EvalSha(safe, "0000000000000000000000000000000000000000", nil).Err()
		}, outcome{"NOSCRIPT", verdict.Neutral, 0}},
		{"LOADING", reply(rdb, safe, "LOADING Redis is loading the dataset in memory"), outcome{"LOADING", verdict.Transient, 3}},
		{"MASTERDOWN", reply(rdb, safe, "MASTERDOWN Link with MASTER is down"), outcome{"MASTERDOWN", verdict.Transient, 3}},
		{"CLUSTERDOWN", reply(rdb, safe, "CLUSTERDOWN The cluster is down"), outcome{"CLUSTERDOWN", verdict.Transient, 3}},
		{"TRYAGAIN", reply(rdb, safe, "TRYAGAIN Multiple keys request during rehashing of slot"), outcome{"TRYAGAIN", verdict.Transient, 3}},
		{"LOADING-unmarked", reply(rdb, ctx, "LOADING Redis is loading the dataset in memory"), outcome{"LOADING", verdict.Transient, 1}},
		{"BUSY-other", reply(rdb, safe, "BUSY Redis is busy running a script"), outcome{"BUSY", verdict.Neutral, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := "runs:" + tc.name
			err := tc.run(key)
			n, _ := admin.Get(ctx, key).Int64()
			got := outcome{redisretry.Code(err), redisretry.Classify(err), n}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%v: (-want +got)\n%s", err, diff)
			}
		})
	}
}

func reply(rdb *redis.Client, ctx context.Context, msg string) func(string) error {
	return func(key string) error { return rdb.Eval(ctx, counted, []string{key}, msg).Err() }
}

// TestConnectionErrors: refused, reset or closed and timeouts are
// failures, against a port with no server, a killed connection and a
// server asleep past the read timeout.
func TestConnectionErrors(t *testing.T) {
	s := redistest.Start(t)
	ctx := context.Background()
	t.Run("refused", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		rdb := newClient(t, addr, redisretry.Config{NoBreaker: true})
		err = rdb.Get(ctx, "k").Err()
		if diff := cmp.Diff(outcome{Code: "refused", Verdict: verdict.Transient}, outcome{Code: redisretry.Code(err), Verdict: redisretry.Classify(err)}); diff != "" {
			t.Errorf("%v: (-want +got)\n%s", err, diff)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		rdb := newClient(t, s.Addr, redisretry.Config{NoBreaker: true})
		err := rdb.Do(ctx, "DEBUG", "SLEEP", "0.7").Err()
		if diff := cmp.Diff(outcome{Code: "timeout", Verdict: verdict.Transient}, outcome{Code: redisretry.Code(err), Verdict: redisretry.Classify(err)}); diff != "" {
			t.Errorf("%v: (-want +got)\n%s", err, diff)
		}
		time.Sleep(300 * time.Millisecond) // let the server wake before the next subtest
	})
}

// TestClientKill: CLIENT KILL ends a command in flight. Marked idempotent, it
// is sent again on a new connection and succeeds; unmarked, its error
// comes back after one attempt.
func TestClientKill(t *testing.T) {
	s := redistest.Start(t)
	admin := s.Admin(t)
	ctx := context.Background()
	for _, marked := range []bool{true, false} {
		t.Run(fmt.Sprint("marked=", marked), func(t *testing.T) {
			var retries []string
			rdb := newClient(t, s.Addr, redisretry.Config{NoBreaker: true, Options: retry.Options{
				Observer: onRetry(func(err error) { retries = append(retries, redisretry.Code(err)) }),
			}})
			cctx := ctx
			if marked {
				cctx = redisretry.WithIdempotent(ctx)
			}
			key := fmt.Sprint("queue:", marked)
			done := make(chan error, 1)
			var got string
			go func() {
				v, err := rdb.BLPop(cctx, time.Second, key).Result()
				if err == nil {
					got = v[1]
				}
				done <- err
			}()
			waitBlocked(t, admin, 1)
			if err := admin.ClientKillByFilter(ctx, "TYPE", "normal", "SKIPME", "yes").Err(); err != nil {
				t.Fatal(err)
			}
			if marked {
				waitBlocked(t, admin, 1)
				if err := admin.LPush(ctx, key, "job").Err(); err != nil {
					t.Fatal(err)
				}
			}
			err := <-done
			if marked {
				if err != nil || got != "job" {
					t.Fatalf("got %q, %v; want job, nil", got, err)
				}
				if diff := cmp.Diff([]string{"closed"}, retries); diff != "" {
					t.Errorf("retries (-want +got)\n%s", diff)
				}
				return
			}
			if c := redisretry.Code(err); c != "closed" && c != "reset" {
				t.Errorf("got %v (%s), want the killed connection's error", err, c)
			}
			if len(retries) != 0 {
				t.Errorf("unmarked command retried: %v", retries)
			}
		})
	}
}

// waitBlocked waits until n clients are blocked, for at most 2 s.
func waitBlocked(t *testing.T, admin *redis.Client, n int64) {
	t.Helper()
	for range 200 {
		info, err := admin.Info(context.Background(), "clients").Result()
		if err == nil && blocked(info) == n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no %d blocked clients within 2s", n)
}

func blocked(info string) int64 {
	var n int64
	for _, line := range splitLines(info) {
		if _, err := fmt.Sscanf(line, "blocked_clients:%d", &n); err == nil {
			return n
		}
	}
	return -1
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := range len(s) {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// TestRestart: the server killed, the breaker opens after its failures
// and fails fast without dialling; the server back, a probe closes it.
func TestRestart(t *testing.T) {
	s := redistest.Start(t)
	ctx := context.Background()
	var dials atomic.Int64
	rdb, h := hooked(t, s.Addr, redisretry.Config{Breaker: breakers(t, breaker.Config{
		ConsecutiveFailures: 3,
		OpenFor:             parse.MustParse("spaced(300ms)"),
	})})
	rdb.AddHook(dialCounter{&dials})
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	s.Kill()
	for i := range 3 {
		if err := rdb.Get(ctx, "k").Err(); redisretry.Classify(err) != verdict.Transient {
			t.Fatalf("call %d while down: %v, want a connection failure", i, err)
		}
	}
	before := dials.Load()
	err := rdb.Get(ctx, "k").Err()
	if !errors.Is(err, breaker.ErrOpen) {
		t.Fatalf("got %v, want breaker.ErrOpen", err)
	}
	cmds, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Get(ctx, "a")
		p.Get(ctx, "b")
		return nil
	})
	if !errors.Is(err, breaker.ErrOpen) {
		t.Errorf("pipeline: got %v, want breaker.ErrOpen", err)
	}
	for _, c := range cmds {
		if !errors.Is(c.Err(), breaker.ErrOpen) {
			t.Errorf("pipelined %v: got %v, want breaker.ErrOpen", c.Args(), c.Err())
		}
	}
	if dials.Load() != before {
		t.Errorf("the open breaker let a dial through")
	}
	s.Restart()
	time.Sleep(350 * time.Millisecond)
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatalf("probe: %v", err)
	}
	if st := h.Breaker().State(); st != breaker.Closed {
		t.Errorf("breaker %v after the probe, want closed", st)
	}
}

type dialCounter struct{ n *atomic.Int64 }

func (d dialCounter) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		d.n.Add(1)
		return next(ctx, network, addr)
	}
}
func (d dialCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (d dialCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// TestMasterDown: a replica whose master is gone, with
// replica-serve-stale-data off, answers reads with MASTERDOWN: a
// failure, retried when marked.
func TestMasterDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s := redistest.Start(t, "--replicaof", "127.0.0.1", fmt.Sprint(gone), "--replica-serve-stale-data", "no")
	var retries []string
	rdb := newClient(t, s.Addr, redisretry.Config{NoBreaker: true, Options: retry.Options{
		Observer: onRetry(func(err error) { retries = append(retries, redisretry.Code(err)) }),
	}})
	err = rdb.Get(redisretry.WithIdempotent(context.Background()), "k").Err()
	got := outcome{redisretry.Code(err), redisretry.Classify(err), int64(len(retries))}
	if diff := cmp.Diff(outcome{"MASTERDOWN", verdict.Transient, 2}, got); diff != "" {
		t.Errorf("%v: (-want +got)\n%s", err, diff)
	}
}

// TestObserver: Options.Observer sees each attempt and the retry
// between them, with the client's address as the target and the
// attempt's reason label: an error reply that is retried, in a command
// and in a pipeline; one that is not; a prefix outside the known ones;
// a port where no server listens.
func TestObserver(t *testing.T) {
	s := redistest.Start(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	// once fails the first run with the error reply msg.
	once := func(msg string) string {
		return `if redis.call('INCR', KEYS[1]) == 1 then return redis.error_reply('` + msg + `') end; return 'OK'`
	}
	const always = `return redis.error_reply(ARGV[1])`
	retried := func(label string) []retrytest.Seen {
		return []retrytest.Seen{
			{Kind: retry.Attempted, Target: s.Addr, Attempt: 1, Label: label},
			{Kind: retry.Retrying, Target: s.Addr, Attempt: 1, Label: label},
			{Kind: retry.Attempted, Target: s.Addr, Attempt: 2},
			{Kind: retry.Recovered, Target: s.Addr, Attempt: 2, Label: label},
		}
	}
	for _, tc := range []struct {
		name string
		addr string
		run  func(ctx context.Context, rdb *redis.Client, key string) error
		want []retrytest.Seen
	}{
		{"loading", s.Addr, func(ctx context.Context, rdb *redis.Client, key string) error {
			return rdb.Eval(ctx, once("LOADING Redis is loading the dataset in memory"), []string{key}).Err()
		}, retried("loading")},
		{"pipeline", s.Addr, func(ctx context.Context, rdb *redis.Client, key string) error {
			pipe := rdb.Pipeline()
			pipe.Get(ctx, "x")
			pipe.Eval(ctx, once("TRYAGAIN Multiple keys request during rehashing of slot"), []string{key})
			_, err := pipe.Exec(ctx)
			if errors.Is(err, redis.Nil) {
				return nil
			}
			return err
		}, retried("tryagain")},
		{"busy", s.Addr, func(ctx context.Context, rdb *redis.Client, key string) error {
			if err := rdb.Eval(ctx, always, nil, "BUSY Redis is busy running a script").Err(); redisretry.Code(err) != "BUSY" {
				return fmt.Errorf("got %v, want BUSY", err)
			}
			return nil
		}, []retrytest.Seen{{Kind: retry.Attempted, Target: s.Addr, Attempt: 1, Label: "busy"}}},
		{"any-prefix", s.Addr, func(ctx context.Context, rdb *redis.Client, key string) error {
			if err := rdb.Eval(ctx, always, nil, "NOTAPREFIX made up by a script").Err(); redisretry.Code(err) != "NOTAPREFIX" {
				return fmt.Errorf("got %v, want NOTAPREFIX", err)
			}
			return nil
		}, []retrytest.Seen{{Kind: retry.Attempted, Target: s.Addr, Attempt: 1, Label: "error"}}},
		{"dial", closed, func(ctx context.Context, rdb *redis.Client, key string) error {
			if err := rdb.Get(ctx, key).Err(); redisretry.Code(err) != "refused" {
				return fmt.Errorf("got %v, want refused", err)
			}
			return nil
		}, []retrytest.Seen{
			{Kind: retry.Attempted, Target: closed, Attempt: 1, Label: "dial"},
			{Kind: retry.Retrying, Target: closed, Attempt: 1, Label: "dial"},
			{Kind: retry.Attempted, Target: closed, Attempt: 2, Label: "dial"},
			{Kind: retry.GaveUp, Target: closed, Attempt: 2, Label: "dial"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rec retrytest.Recorder
			rdb := newClient(t, tc.addr, redisretry.Config{NoBreaker: true, Policy: parse.MustParse("times(2)"), Options: retry.Options{Observer: &rec}})
			if err := tc.run(redisretry.WithIdempotent(context.Background()), rdb, "observed:"+tc.name); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, rec.Seen()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}
