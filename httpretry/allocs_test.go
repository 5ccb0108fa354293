//go:build !race

package httpretry_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/recur-go/recur/httpretry"
)

// TestOverheadAllocs: a request that succeeds at once costs the Transport
// no allocation of its own around a Base that bounds its connections
// itself (a ConnBounder), and five around any other Base (the client
// trace that counts its connections: the attempt, the trace's hook, the
// cancelable context, its cancel function and the context that carries
// the trace).
func TestOverheadAllocs(t *testing.T) {
	req, err := http.NewRequestWithContext(context.Background(), "GET", "http://bench.test/", nil)
	if err != nil {
		t.Fatal(err)
	}
	allocs := func(rt http.RoundTripper) float64 {
		return testing.AllocsPerRun(200, func() {
			resp, err := rt.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		})
	}
	base := allocs(cannedBase{})
	for _, tc := range []struct {
		name  string
		rt    http.RoundTripper
		extra float64
	}{
		{"ConnBounder", &httpretry.Transport{Base: cannedBounder{}, Policy: benchPolicy}, 0},
		{"traced", &httpretry.Transport{Base: cannedBase{}, Policy: benchPolicy}, 5},
	} {
		if got := allocs(tc.rt) - base; got != tc.extra {
			t.Errorf("%s: %v allocations more than the Base alone, want %v", tc.name, got, tc.extra)
		}
	}
}

// TestGetAllocs: a GET that succeeds at once, through an *http.Transport
// Base, costs one allocation more than the same GET on the Transport
// alone: the attempt's context, which counts its dials, and the request
// under it.
func TestGetAllocs(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "hello")
	}))
	defer srv.Close()
	allocs := func(rt http.RoundTripper) float64 {
		client := &http.Client{Transport: rt}
		get := func() {
			resp, err := client.Get(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		get() // the connection, outside the count
		return testing.AllocsPerRun(200, get)
	}
	base := &http.Transport{}
	defer base.CloseIdleConnections()
	tr := &httpretry.Transport{Base: base, Policy: benchPolicy}
	defer tr.CloseIdleConnections()
	// The server's allocations are counted too, and vary by one now and
	// then: the smallest difference of three rounds is the Transport's.
	best := 1e9
	for range 3 {
		best = min(best, allocs(tr)-allocs(base))
	}
	if best > 1 {
		t.Errorf("a GET through httpretry: %v allocations more than through its Base alone, want at most 1", best)
	}
}
