package redisretry_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/recur-go/recur/redisretry"
	"github.com/recur-go/recur/redisretry/internal/redistest"
)

// TestIncrReplyLost: the server runs an INCR and the connection dies
// before its reply arrives. go-redis with its default retries sends it
// again, and it runs twice; through the hook it is sent once, and the
// caller gets the connection error.
func TestIncrReplyLost(t *testing.T) {
	s := redistest.Start(t)
	admin := s.Admin(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		rdb  func(addr string) *redis.Client
		want int64
	}{
		{"go-redis-default", func(addr string) *redis.Client {
			rdb := redis.NewClient(&redis.Options{Addr: addr})
			t.Cleanup(func() { rdb.Close() })
			return rdb
		}, 2},
		{"redisretry", func(addr string) *redis.Client { return newClient(t, addr, redisretry.Config{}) }, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startCutter(t, s.Addr)
			rdb := tc.rdb(p.addr)
			if err := rdb.Ping(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			key := "counter:" + tc.name
			p.arm(cutReply, 0) // the server runs it; its reply is lost
			err := rdb.Incr(ctx, key).Err()
			n, gerr := admin.Get(ctx, key).Int64()
			if gerr != nil {
				t.Fatal(gerr)
			}
			if n != tc.want {
				t.Errorf("the INCR ran %d times (its error: %v), want %d", n, err, tc.want)
			}
			if tc.name == "redisretry" && redisretry.Code(err) != redisretry.CodeClosed {
				t.Errorf("got %v, want the closed connection's error", err)
			}
		})
	}
}
