// Package natsretry retries NATS requests on a recur schedule.
package natsretry
