//go:build !race

package redisbreaker_test

const raceEnabled = false
