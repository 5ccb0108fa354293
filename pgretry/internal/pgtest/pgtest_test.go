package pgtest_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/recur-go/recur/pgretry/internal/pgtest"
)

// TestStartStopRestart: the server answers, stops, and answers again on
// the same DSN after Restart.
func TestStartStopRestart(t *testing.T) {
	s := pgtest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	one := func() (int, error) {
		c, err := pgx.Connect(ctx, s.DSN(""))
		if err != nil {
			return 0, err
		}
		defer c.Close(ctx)
		var n int
		err = c.QueryRow(ctx, "SELECT 1").Scan(&n)
		return n, err
	}
	if n, err := one(); err != nil || n != 1 {
		t.Fatalf("SELECT 1 = %d, %v; want 1, nil\n%s", n, err, s.Log())
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := one(); err == nil {
		t.Fatal("a stopped server answered")
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if n, err := one(); err != nil || n != 1 {
		t.Fatalf("after Restart: SELECT 1 = %d, %v; want 1, nil", n, err)
	}
}
