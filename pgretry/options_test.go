package pgretry_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/pgretry"
	"github.com/recur-go/recur/schedule"
)

// TestNewErrors: every inconsistent Options is an error from New and
// WrapSQL, before any statement; the zero Options has a breaker.
func TestNewErrors(t *testing.T) {
	// pgxpool.New connects lazily: no server is needed.
	pool, err := pgxpool.New(t.Context(), "host=127.0.0.1 port=1 sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	b, err := breaker.New(breaker.Config{})
	if err != nil {
		t.Fatal(err)
	}
	bucket, err := budget.NewTokenBucket(budget.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		o    pgretry.Options
		want string
	}{
		{"invalid schedule", pgretry.Options{Schedule: schedule.Times{N: -1}}, "invalid Options.Schedule"},
		{"invalid tx schedule", pgretry.Options{TxSchedule: schedule.Exponential{}}, "invalid Options.TxSchedule"},
		{"breaker and none", pgretry.Options{Breaker: b, NoBreaker: true}, "both Breaker and NoBreaker"},
		{"negative timeout", pgretry.Options{Retry: pgretry.RetryOptions{AttemptTimeout: -time.Second}}, "AttemptTimeout -1s is negative"},
		{"negative pushback", pgretry.Options{Retry: pgretry.RetryOptions{MaxPushback: -time.Second}}, "MaxPushback -1s is negative"},
		{"budget and unthrottled", pgretry.Options{Retry: pgretry.RetryOptions{Budget: bucket, Unthrottled: true}}, "both Budget and Unthrottled"},
	} {
		if _, err := pgretry.New(pool, tt.o); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New with %s: %v; want an error containing %q", tt.name, err, tt.want)
		}
		if _, err := pgretry.WrapSQL(nil, tt.o); err == nil {
			t.Errorf("WrapSQL(nil) with %s: nil error", tt.name)
		}
	}
	if _, err := pgretry.New(nil, pgretry.Options{}); err == nil {
		t.Error("New(nil pool): nil error")
	}
	db, err := pgretry.New(pool, pgretry.Options{})
	if err != nil || db.Breaker() == nil {
		t.Errorf("New with the zero Options: breaker %v, %v; want a breaker", db.Breaker(), err)
	}
	db, err = pgretry.New(pool, pgretry.Options{NoBreaker: true})
	if err != nil || db.Breaker() != nil {
		t.Errorf("New with NoBreaker: breaker %v, %v; want none", db.Breaker(), err)
	}
	if err := db.Tx(t.Context(), pgx.TxOptions{}, nil); err == nil {
		t.Error("Tx with a nil function: nil error")
	}
}

// TestRetryOptionsCarryNoBreaker: the breaker is Options.Breaker; the
// runner's options have no field for one, so none can be set and refused.
func TestRetryOptionsCarryNoBreaker(t *testing.T) {
	if _, ok := reflect.TypeOf(pgretry.RetryOptions{}).FieldByName("Breaker"); ok {
		t.Error("pgretry.RetryOptions has a Breaker field")
	}
}
