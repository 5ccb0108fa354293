package pgretry_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/recur-go/recur/pgretry"
)

// benchSetup returns a pool of one connection on the shared server, with
// a one-row table, and a DB on it.
func benchSetup(b *testing.B) (*pgxpool.Pool, *pgretry.DB) {
	s := server(b)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, s.DSN("pool_max_conns=1"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	if _, err := pool.Exec(ctx, "DROP TABLE IF EXISTS bench; CREATE TABLE bench (id int PRIMARY KEY, name text NOT NULL); INSERT INTO bench VALUES (1, 'one')"); err != nil {
		b.Fatal(err)
	}
	db, err := pgretry.New(pool, pgretry.Config{})
	if err != nil {
		b.Fatal(err)
	}
	return pool, db
}

const benchQuery = "SELECT id, name FROM bench WHERE id = $1"

// BenchmarkQueryRow reads one row through plain pgxpool and through a DB
// on the same pool and server: the wrapper's cost is the difference.
// Interleave runs of it (see docs/benchmarks.md) and compare the columns
// with benchstat -col /lib.
func BenchmarkQueryRow(b *testing.B) {
	pool, db := benchSetup(b)
	ctx := context.Background()
	const q = benchQuery
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

// BenchmarkQueryRowPaired runs the two reads of BenchmarkQueryRow in
// turn, call by call, in alternating order, and reports each one's mean
// time, the ratio of the means, and the median of the per-pair ratios: a
// load that changes during the run slows both calls of a pair alike, and
// the median ignores the pairs a stall hit.
func BenchmarkQueryRowPaired(b *testing.B) {
	pool, db := benchSetup(b)
	ctx := context.Background()
	var id int
	var name string
	var plain, wrapped time.Duration
	ratios := make([]float64, 0, 1<<16) // before the loop: not counted
	i := 0
	for b.Loop() {
		var took [2]time.Duration
		for k := range 2 {
			start := time.Now()
			var err error
			if (i+k)%2 == 0 {
				err = pool.QueryRow(ctx, benchQuery, 1).Scan(&id, &name)
				took[0] = time.Since(start)
			} else {
				err = db.QueryRow(ctx, benchQuery, 1).Scan(&id, &name)
				took[1] = time.Since(start)
			}
			if err != nil || id != 1 {
				b.Fatal(id, err)
			}
		}
		plain += took[0]
		wrapped += took[1]
		if len(ratios) < cap(ratios) {
			ratios = append(ratios, float64(took[1])/float64(took[0]))
		}
		i++
	}
	sort.Float64s(ratios)
	b.ReportMetric(float64(plain.Nanoseconds())/float64(i), "pgx-ns/op")
	b.ReportMetric(float64(wrapped.Nanoseconds())/float64(i), "recur-ns/op")
	b.ReportMetric(float64(wrapped)/float64(plain), "recur/pgx")
	b.ReportMetric(ratios[len(ratios)/2], "recur/pgx-median")
}
