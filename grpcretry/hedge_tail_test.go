package grpcretry_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/status"

	"github.com/recur-go/recur/grpcretry"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/retry"
)

// tailBehaviour answers one call in 20 (5%) after 400ms, or when its
// client cancels it, and the others after 2ms.
func tailBehaviour(ctx context.Context, n int) error {
	d := 2 * time.Millisecond
	if n%20 == 0 {
		d = 400 * time.Millisecond
	}
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return status.FromContextError(ctx.Err()).Err()
	}
}

func grpcTail(t *testing.T, client testpb.TestServiceClient, calls int) []time.Duration {
	t.Helper()
	lat := make([]time.Duration, calls)
	var wg sync.WaitGroup
	next := make(chan int)
	for range 4 {
		wg.Go(func() {
			for i := range next {
				begin := time.Now()
				if _, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{}); err != nil {
					t.Error(err)
				}
				lat[i] = time.Since(begin)
			}
		})
	}
	deadline := time.Now().Add(2 * time.Minute)
	for i := range calls {
		if time.Now().After(deadline) {
			t.Fatalf("only %d calls in 2 minutes", i)
		}
		next <- i
	}
	close(next)
	wg.Wait()
	slices.Sort(lat)
	return lat
}

// Against a gRPC server whose latency has a tail (5% of calls take 400ms,
// the rest 2ms), hedging at 40ms cuts the p99 latency of 2,000 calls by
// far more than 5×, for about 5% more calls on the server.
func TestHedgeTailLatency(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 4,000 calls")
	}
	const calls = 2000
	plainSrv := start(t, tailBehaviour)
	plain := grpcTail(t, dial(t, plainSrv.addr, intercept(t, grpcretry.Config{Policy: parse.MustParse("times(1)"), Options: retry.Options{Unthrottled: true}})), calls)
	hedgedSrv := start(t, tailBehaviour)
	hedged := grpcTail(t, dial(t, hedgedSrv.addr, intercept(t, grpcretry.Config{Policy: parse.MustParse("spaced(40ms) & times(3)"), Hedge: true, Options: retry.Options{Unthrottled: true}})), calls)
	q := func(s []time.Duration, f float64) time.Duration { return s[min(len(s)-1, int(f*float64(len(s))))] }
	p99, h99 := q(plain, 0.99), q(hedged, 0.99)
	extra := float64(hedgedSrv.count()-calls) / calls
	t.Logf("p50 %v → %v, p99 %v → %v (%.1f×), calls on the server +%.1f%%", q(plain, 0.5), q(hedged, 0.5), p99, h99, float64(p99)/float64(h99), 100*extra)
	if p99 < 5*h99 {
		t.Errorf("p99 %v hedged, %v not: want at least 5× less", h99, p99)
	}
	if extra >= 0.10 {
		t.Errorf("hedging made %.1f%% more calls; want under 10%%", 100*extra)
	}
}
