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

// TestRunLanguage: linear, whilebelow and + simulate as they step: Polly's
// linear 2s, 4s, 6s; a whilebelow that gives up at 8s; a sum whose random
// part the band shows.
func TestRunLanguage(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want []time.Duration
	}{
		{"linear(2s) & times(4)", []time.Duration{2 * time.Second, 4 * time.Second, 6 * time.Second}},
		{"whilebelow(exponential(1s, 200%, 1h), 5s)", []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}},
	} {
		s, err := parse.Parse(tt.src)
		if err != nil {
			t.Fatal(err)
		}
		r := simulate.Run(context.Background(), s, 1, 0, 100)
		if diff := cmp.Diff(tt.want, r.DelaysNS); diff != "" || r.Truncated {
			t.Errorf("%s: truncated %v, delays (-want +got):\n%s", tt.src, r.Truncated, diff)
		}
	}
	s, err := parse.Parse("linear(1s, 0) + random(0, 1s) & times(4)")
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range simulate.Band(s, 200, 10) {
		if b.Min < time.Second || b.Max > 2*time.Second || b.Max-b.Min < 800*time.Millisecond {
			t.Errorf("retry %d: band %+v; want a spread within [1s, 2s]", i+1, b)
		}
	}
}
