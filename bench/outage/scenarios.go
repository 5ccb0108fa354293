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
// Seed, Clients, Rate, Attempt, Before, Down, After and Bucket.
func (s Scenario) With(base Config) Config {
	c := s.Config
	c.Seed, c.Clients, c.Rate, c.Attempt = base.Seed, base.Clients, base.Rate, base.Attempt
	c.Before, c.Down, c.After, c.Bucket = base.Before, base.Down, base.After, base.Bucket
	return c
}
