// Command example shows redisretry at work against a Redis server: a
// BLPOP marked idempotent is sent again after its connection is killed,
// one not marked is not, and a missing key is an answer, not a failure.
//
//	redis-server --port 6380 &
//	cd redisretry && go run ./example -addr 127.0.0.1:6380
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/redisretry"
	"github.com/recur-go/recur/retry"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "the Redis server's address")
	flag.Parse()
	if err := run(os.Stdout, *addr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(w io.Writer, addr string) error {
	ctx := context.Background()
	policy, err := parse.Parse("fulljitter(50ms, 1s) & times(3)")
	if err != nil {
		return err
	}
	breakers, err := breaker.NewRegistry(breaker.Config{ConsecutiveFailures: 3, OpenFor: parse.MustParse("spaced(1s)")}, 0)
	if err != nil {
		return err
	}
	rdb, err := redisretry.NewClient(&redis.Options{Addr: addr}, redisretry.Config{
		Policy:  policy,
		Breaker: breakers,
		Options: retry.Options{Observer: retry.ObserverFunc(func(_ context.Context, e retry.Event) {
			if e.Kind == retry.Retrying {
				fmt.Fprintf(w, "client: attempt %d failed (%s); retrying\n", e.Attempt, redisretry.Code(e.Err))
			}
		})},
	})
	if err != nil {
		return err
	}
	defer rdb.Close()
	admin := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer admin.Close()

	for _, marked := range []bool{true, false} {
		cctx, name := ctx, "not marked"
		if marked {
			cctx, name = redisretry.WithIdempotent(ctx), "marked idempotent"
		}
		fmt.Fprintf(w, "-- BLPOP %s, its connection killed while it waits\n", name)
		done := make(chan error, 1)
		go func() { done <- killThenPush(ctx, admin, marked) }()
		v, err := rdb.BLPop(cctx, 2*time.Second, "jobs").Result()
		if err != nil {
			fmt.Fprintf(w, "client: %s (%v)\n", redisretry.Code(err), redisretry.Classify(err))
		} else {
			fmt.Fprintf(w, "client: got %q\n", v[1])
		}
		if err := <-done; err != nil {
			return err
		}
	}

	fmt.Fprintln(w, "-- a missing key is an answer, not a failure")
	err = rdb.Get(ctx, "missing").Err()
	fmt.Fprintf(w, "client: %s (%v), errors.Is(err, redis.Nil) %v\n", redisretry.Code(err), redisretry.Classify(err), errors.Is(err, redis.Nil))
	return nil
}

// killThenPush waits until a client blocks, kills every connection but
// its own, and if push is set, waits for the retry to block and pushes a
// job for it.
func killThenPush(ctx context.Context, admin *redis.Client, push bool) error {
	if err := waitBlocked(ctx, admin); err != nil {
		return err
	}
	if err := admin.ClientKillByFilter(ctx, "TYPE", "normal", "SKIPME", "yes").Err(); err != nil {
		return err
	}
	if !push {
		return nil
	}
	if err := waitBlocked(ctx, admin); err != nil {
		return err
	}
	return admin.LPush(ctx, "jobs", "job 1").Err()
}

// waitBlocked waits, at most 2 s, until a client is blocked.
func waitBlocked(ctx context.Context, admin *redis.Client) error {
	for range 200 {
		info, err := admin.Info(ctx, "clients").Result()
		if err != nil {
			return err
		}
		if strings.Contains(info, "blocked_clients:1") {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return errors.New("no client blocked within 2s")
}
