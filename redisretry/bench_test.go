package redisretry_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/recur-go/recur/redisretry"
	"github.com/recur-go/recur/redisretry/internal/redistest"
)

// BenchmarkGet is a GET of a present key against redis-server on
// loopback: plain go-redis (retries off), and through the hook, unmarked
// (the breaker alone) and marked idempotent (the breaker and the runner). Run
// it 10 times in a shell loop, so that the three alternate, and compare
// with benchstat -col /lib (see docs/benchmarks.md).
func BenchmarkGet(b *testing.B) {
	s := redistest.Start(b)
	ctx := context.Background()
	if err := s.Admin(b).Set(ctx, "k", "v", 0).Err(); err != nil {
		b.Fatal(err)
	}
	plain := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1})
	b.Cleanup(func() { plain.Close() })
	hooked, _ := hooked(b, s.Addr, redisretry.Config{})
	for _, bc := range []struct {
		name string
		rdb  *redis.Client
		ctx  context.Context
	}{
		{"lib=go-redis", plain, ctx},
		{"lib=redisretry", hooked, ctx},
		{"lib=redisretry-safe", hooked, redisretry.WithIdempotent(ctx)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := bc.rdb.Get(bc.ctx, "k").Err(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHook is the hook's own cost: its ProcessHook around a next
// that answers at once, for a GET unmarked and marked idempotent, with the
// default Config (breaker on).
func BenchmarkHook(b *testing.B) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, ContextTimeoutEnabled: true})
	b.Cleanup(func() { rdb.Close() })
	h, err := redisretry.Install(rdb, redisretry.Config{})
	if err != nil {
		b.Fatal(err)
	}
	process := h.ProcessHook(func(context.Context, redis.Cmder) error { return nil })
	cmd := redis.NewStringCmd(context.Background(), "get", "k")
	for _, bc := range []struct {
		name string
		ctx  context.Context
	}{
		{"unmarked", context.Background()},
		{"safe", redisretry.WithIdempotent(context.Background())},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := process(bc.ctx, cmd); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
