package redisbreaker_test

import (
	"log"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/redisretry/redisbreaker"
	"github.com/recur-go/recur/verdict"
	"github.com/redis/go-redis/v9"
)

// Every instance of a service makes its breaker on the payments API
// with the same name and a Store over the same Redis: the fleet then
// opens as one breaker, and sends one probe per half-open spell.
func Example() {
	rdb := redis.NewClient(&redis.Options{
		Addr:                  "localhost:6379",
		ContextTimeoutEnabled: true, // so that the store's 50 ms timeout holds
	})
	defer rdb.Close()
	store, err := redisbreaker.New(redisbreaker.Config{Client: rdb})
	if err != nil {
		log.Fatal(err)
	}
	b, err := breaker.New(breaker.Config{Name: "payments-api", Shared: store})
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close() // stops its flusher and its subscription
	p, err := b.Allow()
	if err != nil {
		return // open, across the fleet
	}
	// ... call the payments API ...
	b.Record(&p, verdict.Success)
}
