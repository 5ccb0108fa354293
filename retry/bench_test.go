package retry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// policy is the README's: back off from 100ms to 30s with 50–100%
// jitter, at most five attempts.
var policy schedule.Schedule = schedule.Intersect{A: schedule.Backoff(100*time.Millisecond, 30*time.Second), B: schedule.Times{N: 5}}

var errFlaky = errors.New("flaky")

func worthAll(error) bool { return true }

//go:noinline
func succeed(context.Context) (int, error) { return 1, nil }

var sinkInt int

// BenchmarkDirect is the baseline: calling the operation itself.
func BenchmarkDirect(b *testing.B) {
	ctx := context.Background()
	op := succeed
	b.ReportAllocs()
	for b.Loop() {
		v, err := op(ctx)
		if err != nil {
			b.Fatal(err)
		}
		sinkInt += v
	}
}

// BenchmarkFirstTry is a call whose first attempt succeeds, through
// RetryWhile with the README's policy and the zero Options (real clock and
// random).
func BenchmarkFirstTry(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		v, err := retry.RetryWhile(ctx, retry.Options{}, policy, worthAll, succeed)
		if err != nil {
			b.Fatal(err)
		}
		sinkInt += v
	}
}

// BenchmarkFirstTryTimed is the same with a schedule that measures time
// from its start (UpTo), so the clock is read once before the attempt.
func BenchmarkFirstTryTimed(b *testing.B) {
	ctx := context.Background()
	var s schedule.Schedule = schedule.UpTo{Inner: policy, Budget: time.Minute}
	b.ReportAllocs()
	for b.Loop() {
		v, err := retry.RetryWhile(ctx, retry.Options{}, s, worthAll, succeed)
		if err != nil {
			b.Fatal(err)
		}
		sinkInt += v
	}
}

// BenchmarkThreeZeroDelayRetries fails three times and then succeeds, on a
// schedule of zero delays, with the real clock: the cost of a retry itself.
func BenchmarkThreeZeroDelayRetries(b *testing.B) {
	ctx := context.Background()
	var s schedule.Schedule = schedule.Intersect{A: schedule.Forever{}, B: schedule.Times{N: 4}}
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		v, err := retry.RetryWhile(ctx, retry.Options{}, s, worthAll, func(context.Context) (int, error) {
			if n++; n <= 3 {
				return 0, errFlaky
			}
			return n, nil
		})
		if err != nil {
			b.Fatal(err)
		}
		sinkInt += v
	}
}

// BenchmarkVirtual30s runs a policy that gives up after 30 seconds on a
// virtual clock, against an operation that always fails.
func BenchmarkVirtual30s(b *testing.B) {
	ctx := context.Background()
	var s schedule.Schedule = schedule.UpTo{Inner: schedule.Backoff(100*time.Millisecond, 5*time.Second), Budget: 30 * time.Second}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		o := retry.Options{Caps: retry.Caps{Clock: clockcap.Virtual(start), Random: randcap.Seeded(1)}}
		_, err := retry.Retry(ctx, o, s, func(context.Context) (int, error) { return 0, errFlaky })
		var e *retry.Error
		if !errors.As(err, &e) || e.Reason != retry.Exhausted {
			b.Fatal(err)
		}
	}
}

// BenchmarkZeroDelayRetry is the marginal cost of one retry on a schedule
// of zero delays: one call whose operation fails b.N times, then succeeds.
func BenchmarkZeroDelayRetry(b *testing.B) {
	ctx := context.Background()
	n := 0
	b.ReportAllocs()
	b.ResetTimer()
	_, err := retry.RetryWhile(ctx, retry.Options{}, schedule.Forever{}, worthAll, func(context.Context) (int, error) {
		if n++; n <= b.N {
			return 0, errFlaky
		}
		return n, nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkFirstTryLeaf is BenchmarkFirstTry with a one-node schedule: the
// difference is the cost of looking for Spaced and UpTo in the policy.
func BenchmarkFirstTryLeaf(b *testing.B) {
	ctx := context.Background()
	var s schedule.Schedule = schedule.Times{N: 5}
	b.ReportAllocs()
	for b.Loop() {
		v, err := retry.RetryWhile(ctx, retry.Options{}, s, worthAll, succeed)
		if err != nil {
			b.Fatal(err)
		}
		sinkInt += v
	}
}

// BenchmarkFirstTryObserved is BenchmarkFirstTry with an Observer that
// counts events: the cost of one, two clock reads and a call.
func BenchmarkFirstTryObserved(b *testing.B) {
	ctx := context.Background()
	var n int
	o := retry.Options{Observer: retry.ObserverFunc(func(context.Context, retry.Event) { n++ }), Target: "t"}
	b.ReportAllocs()
	for b.Loop() {
		v, err := retry.RetryWhile(ctx, o, policy, worthAll, succeed)
		if err != nil {
			b.Fatal(err)
		}
		sinkInt += v
	}
}
