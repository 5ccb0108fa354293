package repeat_test

import (
	"context"
	"testing"
	"time"

	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/repeat"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// BenchmarkPollVirtual5m polls every 30 seconds for five minutes (eleven
// polls) on a virtual clock.
func BenchmarkPollVirtual5m(b *testing.B) {
	ctx := context.Background()
	var s schedule.Schedule = schedule.UpTo{Inner: schedule.Spaced{Every: 30 * time.Second}, Budget: 5 * time.Minute}
	ok := func(context.Context) error { return nil }
	b.ReportAllocs()
	for b.Loop() {
		o := repeat.Options{Caps: retry.Caps{Clock: clockcap.Virtual(epoch), Random: randcap.Seeded(1)}}
		if n, err := repeat.Repeat(ctx, o, s, ok); n != 11 || err != nil {
			b.Fatal(n, err)
		}
	}
}

// BenchmarkZeroDelayRun is the marginal cost of one more run on a schedule
// of zero delays: one call whose operation succeeds b.N times.
func BenchmarkZeroDelayRun(b *testing.B) {
	ctx := context.Background()
	runs := 0
	b.ReportAllocs()
	b.ResetTimer()
	n, _ := repeat.Repeat(ctx, repeat.Options{}, schedule.Forever{}, func(context.Context) error {
		if runs++; runs > b.N {
			return errBroken
		}
		return nil
	})
	if n != b.N {
		b.Fatal(n)
	}
}
