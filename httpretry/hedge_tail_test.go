package httpretry_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/schedule"
)

// tailServer answers one request in 20 (5%) after 400ms, or when its
// client gives up on it, and the others after 2ms.
func tailServer(n int64, w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	d := 2 * time.Millisecond
	if n%20 == 0 {
		d = 400 * time.Millisecond
	}
	select {
	case <-time.After(d):
		io.WriteString(w, "ok")
	case <-r.Context().Done():
	}
}

// tail makes calls GETs, 4 at a time, through tr and returns their
// latencies, sorted.
func tail(t *testing.T, tr http.RoundTripper, url string, calls int) []time.Duration {
	t.Helper()
	lat := make([]time.Duration, calls)
	var wg sync.WaitGroup
	next := make(chan int)
	for range 4 {
		wg.Go(func() {
			for i := range next {
				req, _ := http.NewRequestWithContext(context.Background(), "GET", url, nil)
				begin := time.Now()
				resp, err := tr.RoundTrip(req)
				if err != nil {
					t.Error(err)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				lat[i] = time.Since(begin)
			}
		})
	}
	deadline := time.Now().Add(2 * time.Minute) // bounded whatever the machine
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

func quantile(sorted []time.Duration, q float64) time.Duration {
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}

// Against a loopback server whose latency has a tail (5% of requests take
// 400ms, the rest 2ms), hedging at 40ms cuts the p99 latency of 2,000 GETs
// by far more than 5×, for about 5% more requests (docs/hedging.md quotes
// the figures of a run).
func TestHedgeTailLatency(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 4,000 requests")
	}
	const calls = 2000
	plainSrv := newServer(t, tailServer)
	plain := tail(t, &httpretry.Transport{Base: newBase(t), Policy: schedule.Times{N: 1}}, plainSrv.URL, calls)
	hedgedSrv := newServer(t, tailServer)
	hedge := schedule.Intersect{A: schedule.Spaced{Every: 40 * time.Millisecond}, B: schedule.Times{N: 3}}
	hedged := tail(t, &httpretry.Transport{Base: newBase(t), Policy: schedule.Times{N: 1}, Hedge: hedge, Budget: ownBudgets()}, hedgedSrv.URL, calls)
	p99, h99 := quantile(plain, 0.99), quantile(hedged, 0.99)
	extra := float64(hedgedSrv.requests.Load()-calls) / calls
	t.Logf("p50 %v → %v, p99 %v → %v (%.1f×), requests +%.1f%%", quantile(plain, 0.5), quantile(hedged, 0.5), p99, h99, float64(p99)/float64(h99), 100*extra)
	if p99 < 5*h99 {
		t.Errorf("p99 %v hedged, %v not: want at least 5× less", h99, p99)
	}
	if extra >= 0.10 {
		t.Errorf("hedging made %.1f%% more requests; want under 10%%", 100*extra)
	}
}
