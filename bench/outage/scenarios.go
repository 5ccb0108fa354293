package outage

import "github.com/recur-go/recur/schedule"

// Scenario is one way for the clients to call the dependency.
type Scenario struct {
	Name   string // what the clients do, for a table
	Config Config // the fields that make it so; the rest are the caller's
}

// NoRetries is the policy of clients that do not retry: one attempt.
var NoRetries schedule.Schedule = schedule.Times{N: 1}

// Scenarios are the rows of the retry-storm table: no retries as the
// baseline, DefaultPolicy alone, with each budget, with a breaker, and with
// a breaker and the A6 bucket (what a database client typically defaults to).
func Scenarios() []Scenario {
	return []Scenario{
		{"no retries", Config{Policy: NoRetries}},
		{"retries, no budget", Config{}},
		{"retries + A6 token bucket", Config{Budget: TokenBucket}},
		{"retries + SRE retry ratio", Config{Budget: Ratio}},
		{"retries + SRE adaptive throttling", Config{Budget: Adaptive}},
		{"retries + breaker", Config{Breaker: true}},
		{"retries + breaker + A6 token bucket", Config{Breaker: true, Budget: TokenBucket}},
	}
}

// With returns s's Config with the scenario-independent fields of base:
// Seed, Clients, Rate, Attempt, Before, Down, After, Bucket and Flush.
func (s Scenario) With(base Config) Config {
	c := s.Config
	c.Seed, c.Clients, c.Rate, c.Attempt = base.Seed, base.Clients, base.Rate, base.Attempt
	c.Before, c.Down, c.After, c.Bucket = base.Before, base.Down, base.After, base.Bucket
	c.Flush = base.Flush
	return c
}

// FleetScenarios are the rows of the fleet table: 1,000 instances of a
// service, each with a breaker on the dependency, sharing 10,000 requests
// a second (10 each) through the runner with DefaultPolicy; the breakers
// each on their own, then sharing one store.
func FleetScenarios() []Scenario {
	return []Scenario{
		{"a breaker per instance", Config{Breaker: true}},
		{"breakers shared", Config{Breaker: true, Shared: true}},
	}
}

// FleetBase is the fleet table's run: 1,000 instances, 10,000 requests a
// second, healthy 2 s, down 20 s (the breakers' default open durations,
// 5 s then 10 s, give two half-open spells within it), healthy 20 s.
var FleetBase = Config{Seed: 1, Clients: 1000, Rate: 10_000, Before: 2e9, Down: 20e9, After: 20e9}
