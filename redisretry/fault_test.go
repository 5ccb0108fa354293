package redisretry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/parse"
	"github.com/redis/go-redis/v9"

	"github.com/recur-go/recur/redisretry"
)

// TestSlowCalls: DEBUG SLEEP past Breaker.SlowCall makes the calls slow;
// once half of them are, the breaker opens and the next command fails
// fast.
func TestSlowCalls(t *testing.T) {
	s := startServer(t)
	ctx := context.Background()
	rdb, h := hooked(t, s.addr, redisretry.Config{Breaker: breaker.Config{
		SlowCall: 50 * time.Millisecond, SlowRate: 50, MinCalls: 4,
		OpenFor: parse.MustParse("spaced(10s)"),
	}})
	for _, c := range [][]any{{"PING"}, {"DEBUG", "SLEEP", "0.1"}, {"PING"}, {"DEBUG", "SLEEP", "0.1"}} {
		if err := rdb.Do(ctx, c...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if st := h.Breaker().State(); st != breaker.Open {
		t.Fatalf("breaker %v after 2 slow calls in 4, want open", st)
	}
	if err := rdb.Get(ctx, "k").Err(); !errors.Is(err, breaker.ErrOpen) {
		t.Errorf("got %v, want breaker.ErrOpen", err)
	}
	if got := h.Breaker().Stats().Slow; got != 2 {
		t.Errorf("%d slow calls counted, want 2", got)
	}
}

// TestIncrAtMostOnce: an INCR whose reply is lost to a stalled server
// (DEBUG SLEEP past the read timeout) fails and is not sent again, even
// marked nowhere and with the server back: the count after recovery is
// exactly 1. Plain go-redis, with its default retries, sends it again.
func TestIncrAtMostOnce(t *testing.T) {
	s := startServer(t)
	admin := s.admin(t)
	ctx := context.Background()
	clients := map[string]*redis.Client{
		"redisretry": newClient(t, s.addr, redisretry.Config{}),
	}
	plain := redis.NewClient(&redis.Options{Addr: s.addr, ReadTimeout: 200 * time.Millisecond, MaxRetryBackoff: 50 * time.Millisecond})
	t.Cleanup(func() { plain.Close() })
	clients["go-redis-default"] = plain
	got := map[string]int64{}
	for name, rdb := range clients {
		key := "counter:" + name
		if err := rdb.Ping(ctx).Err(); err != nil { // a live connection, so the INCR is written
			t.Fatal(err)
		}
		stall := make(chan error, 1)
		go func() { stall <- admin.Do(ctx, "DEBUG", "SLEEP", "0.6").Err() }()
		time.Sleep(50 * time.Millisecond)
		err := rdb.Incr(ctx, key).Err()
		if name == "redisretry" && redisretry.Code(err) != "timeout" {
			t.Errorf("%s: INCR during the stall: %v, want a timeout", name, err)
		}
		if err := <-stall; err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond) // the server drains what was written
		n, err := admin.Get(ctx, key).Int64()
		if err != nil {
			t.Fatal(err)
		}
		got[name] = n
	}
	if got["redisretry"] != 1 {
		t.Errorf("redisretry: the INCR ran %d times, want exactly 1", got["redisretry"])
	}
	if got["go-redis-default"] < 2 {
		t.Logf("go-redis's default retries ran the INCR %d times", got["go-redis-default"])
	}
}

// TestPipelines: a pipeline is retried whole when every command in it is
// marked safe, and sent once otherwise.
func TestPipelines(t *testing.T) {
	s := startServer(t)
	admin := s.admin(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		ctx      context.Context
		readOnly bool
		cmds     func(p redis.Pipeliner, key string)
		want     int64
	}{
		{"marked", redisretry.WithSafe(ctx), false, func(p redis.Pipeliner, key string) {
			p.Get(ctx, "x")
			p.Eval(ctx, counted, []string{key}, "LOADING loading")
		}, 3},
		{"unmarked", ctx, false, func(p redis.Pipeliner, key string) {
			p.Get(ctx, "x")
			p.Eval(ctx, counted, []string{key}, "LOADING loading")
		}, 1},
		{"read-only-with-a-script", ctx, true, func(p redis.Pipeliner, key string) {
			p.Get(ctx, "x")
			p.Eval(ctx, counted, []string{key}, "LOADING loading")
		}, 1},
		{"transaction-marked", redisretry.WithSafe(ctx), false, func(p redis.Pipeliner, key string) {
			p.Eval(ctx, counted, []string{key}, "LOADING loading")
		}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rdb := newClient(t, s.addr, redisretry.Config{NoBreaker: true, ReadOnlySafe: tc.readOnly})
			key := "runs:" + tc.name
			pipe := rdb.Pipeline()
			if tc.name == "transaction-marked" {
				pipe = rdb.TxPipeline()
			}
			tc.cmds(pipe, key)
			_, err := pipe.Exec(tc.ctx)
			if redisretry.Code(err) != "LOADING" {
				t.Errorf("got %v, want LOADING", err)
			}
			n, _ := admin.Get(ctx, key).Int64()
			if diff := cmp.Diff(tc.want, n); diff != "" {
				t.Errorf("runs (-want +got)\n%s", diff)
			}
		})
	}
}
