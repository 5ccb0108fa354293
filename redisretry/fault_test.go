package redisretry_test

import (
	"context"
	"errors"
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

// TestSlowCalls: DEBUG SLEEP past Breaker.SlowCall makes the calls slow;
// once half of them are, the breaker opens and the next command fails
// fast.
func TestSlowCalls(t *testing.T) {
	s := redistest.Start(t)
	ctx := context.Background()
	rdb, h := hooked(t, s.Addr, redisretry.Config{Breaker: breakers(t, breaker.Config{
		SlowCall: 200 * time.Millisecond, SlowRate: 50, MinCalls: 4,
		OpenFor: parse.MustParse("spaced(10s)"),
	})})
	for _, c := range [][]any{{"PING"}, {"DEBUG", "SLEEP", "0.3"}, {"PING"}, {"DEBUG", "SLEEP", "0.3"}} {
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
// (DEBUG SLEEP past the read timeout) fails and is not sent again: the
// count on the server after it recovers is exactly 1.
func TestIncrAtMostOnce(t *testing.T) {
	s := redistest.Start(t)
	admin := s.Admin(t)
	ctx := context.Background()
	rdb := newClient(t, s.Addr, redisretry.Config{})
	if err := rdb.Ping(ctx).Err(); err != nil { // a live connection, so the INCR is written
		t.Fatal(err)
	}
	stall := make(chan error, 1)
	go func() { stall <- admin.Do(ctx, "DEBUG", "SLEEP", "0.6").Err() }()
	time.Sleep(50 * time.Millisecond)
	if err := rdb.Incr(ctx, "counter").Err(); redisretry.Code(err) != "timeout" {
		t.Errorf("INCR during the stall: %v, want a timeout", err)
	}
	if err := <-stall; err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the server drains what was written
	n, err := admin.Get(ctx, "counter").Int64()
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("the INCR ran %d times, want exactly 1", n)
	}
}

// TestPipelines: a pipeline is retried whole when every command in it is
// marked idempotent, and sent once otherwise.
func TestPipelines(t *testing.T) {
	s := redistest.Start(t)
	admin := s.Admin(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		ctx      context.Context
		readOnly bool
		cmds     func(p redis.Pipeliner, key string)
		want     int64
	}{
		{"marked", redisretry.WithIdempotent(ctx), false, func(p redis.Pipeliner, key string) {
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
		{"transaction-marked", redisretry.WithIdempotent(ctx), false, func(p redis.Pipeliner, key string) {
			p.Eval(ctx, counted, []string{key}, "LOADING loading")
		}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rdb := newClient(t, s.Addr, redisretry.Config{NoBreaker: true, ReadOnlyIdempotent: tc.readOnly})
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

// TestReadOnlyIdempotent: with Config.ReadOnlyIdempotent a GET whose reply is lost
// to a stalled server is sent again and answered once the server wakes;
// without it, or for an INCR, the timeout comes back after one attempt.
func TestReadOnlyIdempotent(t *testing.T) {
	s := redistest.Start(t)
	admin := s.Admin(t)
	ctx := context.Background()
	if err := admin.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		readOnly bool
		cmd      func(rdb *redis.Client) error
		want     []string // the codes retried on; "" for success at the end
	}{
		{"get-readonly", true, func(rdb *redis.Client) error { return rdb.Get(ctx, "k").Err() }, []string{"timeout", ""}},
		{"get", false, func(rdb *redis.Client) error { return rdb.Get(ctx, "k").Err() }, []string{"timeout"}},
		{"incr-readonly", true, func(rdb *redis.Client) error { return rdb.Incr(ctx, "n").Err() }, []string{"timeout"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			rdb, _ := hooked(t, s.Addr, redisretry.Config{NoBreaker: true, ReadOnlyIdempotent: tc.readOnly, Options: retry.Options{
				Observer: onRetry(func(err error) { got = append(got, redisretry.Code(err)) }),
			}})
			if err := rdb.Ping(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			stall := make(chan error, 1)
			go func() { stall <- admin.Do(ctx, "DEBUG", "SLEEP", "0.7").Err() }()
			time.Sleep(50 * time.Millisecond)
			err := tc.cmd(rdb)
			if err == nil {
				got = append(got, "")
			} else if len(got) == 0 {
				got = append(got, redisretry.Code(err))
			}
			if err := <-stall; err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%v: (-want +got)\n%s", err, diff)
			}
		})
	}
}

// TestCallerCancelCountsNothing: commands whose caller has given up say
// nothing of the server: the breaker counts no failure for them, marked
// or not.
func TestCallerCancelCountsNothing(t *testing.T) {
	s := redistest.Start(t)
	rdb, h := hooked(t, s.Addr, redisretry.Config{Breaker: breakers(t, breaker.Config{ConsecutiveFailures: 1})})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []context.Context{ctx, redisretry.WithIdempotent(ctx)} {
		for range 3 {
			err := rdb.Get(c, "k").Err()
			if got := redisretry.Code(err); got != redisretry.CodeCanceled {
				t.Fatalf("got %v (%s), want canceled", err, got)
			}
		}
	}
	st := h.Breaker().Stats()
	if st.State != breaker.Closed || st.Failures != 0 {
		t.Errorf("breaker %v with %d failures after canceled calls, want closed with 0", st.State, st.Failures)
	}
}
