//go:build race

package redisbreaker_test

// raceEnabled: the race detector slows every process several times, so
// the timings of the fleet test would measure it, not the breakers.
const raceEnabled = true
