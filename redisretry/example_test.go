package redisretry_test

import (
	"context"
	"fmt"
	"log"

	"github.com/recur-go/recur/parse"
	"github.com/redis/go-redis/v9"

	"github.com/recur-go/recur/redisretry"
)

// A client whose GET is retried and whose INCR is not. It needs a Redis
// server on 127.0.0.1:6379, so it is compiled but not run.
func Example() {
	ctx := context.Background()
	rdb, err := redisretry.NewClient(&redis.Options{Addr: "127.0.0.1:6379"}, redisretry.Config{
		Policy: parse.MustParse("fulljitter(50ms, 1s) & times(3)"),
	})
	if err != nil {
		log.Fatal(err)
	}
	defer rdb.Close()
	name, err := rdb.Get(redisretry.WithIdempotent(ctx), "user:42:name").Result()
	fmt.Println(name, err)
	visits, err := rdb.Incr(ctx, "user:42:visits").Result()
	fmt.Println(visits, err)
}

// Classify and Code judge an error without a server.
func ExampleClassify() {
	fmt.Println(redisretry.Code(redis.Nil), redisretry.Classify(redis.Nil))
	fmt.Println(redisretry.ReadOnly("GET"), redisretry.ReadOnly("INCR"))
	// Output:
	// nil success
	// true false
}
