// Package redisretry retries go-redis commands on a recur schedule, and
// only the commands that are safe to run twice.
//
// go-redis v9 retries any command up to three times by default on
// network-class errors, an INCR whose reply was lost included. A client
// made with NewClient (or one made with MaxRetries -1 and passed to
// Install) does not: its Hook sends a command once unless its context is
// marked with WithIdempotent, or Config.ReadOnlyIdempotent is set and the
// command is on ReadOnly's list. A marked command is retried with retry.Do
// on the Config's Policy when Classify calls its failure Transient:
// connection refused, reset or closed, a timeout, LOADING, MASTERDOWN,
// CLUSTERDOWN or TRYAGAIN. redis.Nil is a Success; WRONGTYPE, syntax and
// script errors and NOSCRIPT are Neutral and come back at once.
//
//	rdb, err := redisretry.NewClient(&redis.Options{Addr: addr}, redisretry.Config{
//		Policy: parse.MustParse("fulljitter(50ms, 1s) & times(3)"),
//	})
//	...
//	name, err := rdb.Get(redisretry.WithIdempotent(ctx), "user:42:name").Result()
//
// A pipeline or a transaction is retried whole, and only when every
// command in it is marked.
//
// Each client has a circuit breaker (package breaker), on by default: the
// one of its address in Config.Breaker, a breaker.Registry. It guards
// every command, marked or not: an open breaker fails a command at once
// with breaker.ErrOpen. To count slow commands too, give Config.Breaker a
// registry made from a breaker.Config with SlowCall set.
//
// Config has the shape every recur adapter shares, Policy, Breaker,
// NoBreaker, Budget and Options (a retry.Options), described once in
// docs/adapters.md.
package redisretry
