// Package redisretry retries go-redis commands on a recur schedule.
package redisretry
