package pgretry_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/recur-go/recur/pgretry"
)

// BenchmarkQueryRow reads one row through plain pgxpool and through a DB
// on the same pool and server: the wrapper's cost is the difference.
// Interleave runs of it (see docs/benchmarks.md) and compare the columns
// with benchstat -col /lib.
func BenchmarkQueryRow(b *testing.B) {
	s := server(b)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, s.DSN("pool_max_conns=1"))
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, "DROP TABLE IF EXISTS bench; CREATE TABLE bench (id int PRIMARY KEY, name text NOT NULL); INSERT INTO bench VALUES (1, 'one')"); err != nil {
		b.Fatal(err)
	}
	db, err := pgretry.New(pool, pgretry.Options{})
	if err != nil {
		b.Fatal(err)
	}
	const q = "SELECT id, name FROM bench WHERE id = $1"
	for _, lib := range []struct {
		name string
		scan func(id *int, name *string) error
	}{
		{"pgx", func(id *int, name *string) error { return pool.QueryRow(ctx, q, 1).Scan(id, name) }},
		{"recur", func(id *int, name *string) error { return db.QueryRow(ctx, q, 1).Scan(id, name) }},
	} {
		b.Run("lib="+lib.name, func(b *testing.B) {
			b.ReportAllocs()
			var id int
			var name string
			for b.Loop() {
				if err := lib.scan(&id, &name); err != nil || id != 1 {
					b.Fatal(id, err)
				}
			}
		})
	}
}
