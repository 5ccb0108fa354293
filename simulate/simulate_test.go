package simulate_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/simulate"
)

func ExampleRun() {
	s, err := parse.Parse("exponential(100ms, 200%, 1s) & times(4)")
	if err != nil {
		fmt.Println(err)
		return
	}
	r := simulate.Run(context.Background(), s, 1, 0, 100)
	fmt.Println(r.Attempts, r.DelaysNS, r.ElapsedNS)
	// Output: 4 [100ms 200ms 400ms] 700ms
}

func TestRunTruncates(t *testing.T) {
	r := simulate.Run(context.Background(), schedule.Spaced{Every: time.Second}, 1, 0, 3)
	want := simulate.Result{Policy: "Spaced(1s)", Seed: 1, Attempts: 3, DelaysNS: []time.Duration{time.Second, time.Second}, ElapsedNS: 2 * time.Second, Truncated: true}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("Run (-want +got):\n%s", diff)
	}
}

// TestBandHoldsEveryRun: the delays of every run lie inside the band, and a
// policy without jitter has a band of width zero.
func TestBandHoldsEveryRun(t *testing.T) {
	s, err := parse.Parse("fulljitter(100ms, 2s) & times(6)")
	if err != nil {
		t.Fatal(err)
	}
	band := simulate.Band(s, 50, 10)
	if len(band) != 5 {
		t.Fatalf("Band: %d retries, want 5", len(band))
	}
	for seed := uint64(1); seed <= 50; seed++ {
		r := simulate.Run(context.Background(), s, seed, 0, 11)
		for i, d := range r.DelaysNS {
			if b := band[i]; d < b.Min || d > b.Max || b.Median < b.Min || b.Median > b.Max || b.N != 50 {
				t.Fatalf("seed %d retry %d: delay %v outside band %+v", seed, i+1, d, b)
			}
		}
	}
	fixed := simulate.Band(schedule.Intersect{A: schedule.Spaced{Every: time.Second}, B: schedule.Times{N: 3}}, 10, 10)
	want := []simulate.Spread{{time.Second, time.Second, time.Second, 10}, {time.Second, time.Second, time.Second, 10}}
	if diff := cmp.Diff(want, fixed); diff != "" {
		t.Errorf("Band of a fixed policy (-want +got):\n%s", diff)
	}
}
