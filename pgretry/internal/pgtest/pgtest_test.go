package pgtest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
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

// TestStandbyPromote: a server started with StartStandby refuses
// connections with SQLSTATE 57P03 until Promote, then answers.
func TestStandbyPromote(t *testing.T) {
	s := pgtest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.StartStandby(); err != nil {
		t.Fatal(err)
	}
	var err error
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var c *pgx.Conn
		if c, err = pgx.Connect(ctx, s.DSN("")); err == nil {
			c.Close(ctx)
			t.Fatal("a standby in recovery accepted a connection")
		}
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "57P03" {
			break
		}
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "57P03" {
		t.Fatalf("connecting to a standby in recovery: %v; want SQLSTATE 57P03\n%s", err, s.Log())
	}
	if err := s.Promote(); err != nil {
		t.Fatal(err)
	}
	c, err := pgx.Connect(ctx, s.DSN(""))
	if err != nil {
		t.Fatalf("after Promote: %v", err)
	}
	defer c.Close(ctx)
	var n int
	if err := c.QueryRow(ctx, "SELECT 1").Scan(&n); err != nil || n != 1 {
		t.Fatalf("after Promote: SELECT 1 = %d, %v; want 1, nil", n, err)
	}
}
