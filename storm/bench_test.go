package storm_test

import (
	"context"
	"testing"

	"github.com/recur-go/recur/storm"
)

// BenchmarkSimulate is one run of the blog's 50 clients on full jitter:
// about 330 write calls, four events each.
func BenchmarkSimulate(b *testing.B) {
	b.ReportAllocs()
	cfg := storm.Config{Clients: 50, Runs: 1, Seed: 1}
	for b.Loop() {
		if _, err := storm.Simulate(context.Background(), full, cfg); err != nil {
			b.Fatal(err)
		}
	}
}
