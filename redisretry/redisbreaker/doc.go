// Package redisbreaker shares circuit breakers' state across a fleet of
// processes through Redis: give a Store to breaker.Config.Shared, and the
// breakers of one name in every instance open together, advance one open
// schedule, and send HalfOpenProbes probes in all per half-open spell
// instead of that many each (gobreaker v2's DistributedCircuitBreaker,
// with Redis as the shared store).
//
// Transitions are Lua scripts (atomic, compare-and-set on a generation
// number); instances learn of them through a pub/sub channel, and every
// batch reads the state back too. The closed path never touches Redis:
// outcomes are counted locally and sent in batches, those of every
// breaker of a Store in one pipeline per round: a failure at once, a
// batch of successes within its hold (up to Config.FlushMax while the
// fleet's window is clean). Every value read from Redis is checked; one
// no breaker wrote is ErrBadAnswer, and that breaker judges alone.
// Every operation has a short timeout, and Redis itself sits behind a
// local breaker (Config.Guard): while it is unreachable each instance's
// breaker judges its own counts, and when it returns the states are
// merged (an instance that opened meanwhile wins over a closed fleet).
//
// The keys, for a breaker named api and the default prefix:
//
//	recur:breaker:{api}:state    hash: gen, state, k, until (µs, Redis TIME), delay (µs)
//	recur:breaker:{api}:window   hash: 10 buckets t0…t9, c0…c9, f0…f9, s0…s9, streak, ft
//	recur:breaker:{api}:probes   hash: claimed, calls, failures, slow
//	recur:breaker:{api}:events   pub/sub channel: "gen state k remaining-µs delay-µs"
//
// They expire Config.TTL after their last write. See docs/fleet.md.
package redisbreaker
