package httpretry_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/schedule"
)

// benchPolicy backs off from 100ms to 30s, at most three attempts.
var benchPolicy schedule.Schedule = schedule.Intersect{A: schedule.Backoff(100*time.Millisecond, 30*time.Second), B: schedule.Times{N: 3}}

// cannedBase answers every request with the same 200 at once, without a
// network, so that BenchmarkOverhead measures the Transport alone.
type cannedBase struct{}

var cannedBody = io.NopCloser(strings.NewReader(""))

func (cannedBase) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Status: "200 OK", Body: cannedBody}, nil
}

// cannedBounder is cannedBase as a ConnBounder, as h3retry's Base is: the
// Transport calls it as it is, without the client trace that counts the
// connections of a Base it cannot see into.
type cannedBounder struct{ cannedBase }

func (cannedBounder) MaxConnsPerRoundTrip() int { return 1 }

// BenchmarkOverhead is the cost of the Transport itself around a Base
// that answers at once: lib=base calls the Base directly; lib=httpretry
// wraps it in the client trace that bounds its connections, and
// lib=httpretry+connbounder is the Transport alone, around a Base that
// bounds them itself.
func BenchmarkOverhead(b *testing.B) {
	req, err := http.NewRequestWithContext(context.Background(), "GET", "http://bench.test/", nil)
	if err != nil {
		b.Fatal(err)
	}
	breakers, err := breaker.NewRegistry(breaker.Config{}, 0)
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		rt   http.RoundTripper
	}{
		{"lib=base", cannedBase{}},
		{"lib=httpretry", &httpretry.Transport{Base: cannedBase{}, Policy: benchPolicy}},
		{"lib=httpretry+breaker", &httpretry.Transport{Base: cannedBase{}, Policy: benchPolicy, Breaker: breakers}},
		{"lib=httpretry+connbounder", &httpretry.Transport{Base: cannedBounder{}, Policy: benchPolicy}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				resp, err := tc.rt.RoundTrip(req)
				if err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
			}
		})
	}
}

// BenchmarkGet is one successful GET on a loopback server, body read and
// closed, through a plain http.Client and through httpretry on the same
// kind of transport.
func BenchmarkGet(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "hello")
	}))
	defer srv.Close()
	for _, lib := range []string{"plain", "httpretry"} {
		b.Run("lib="+lib, func(b *testing.B) {
			base := &http.Transport{}
			defer base.CloseIdleConnections()
			client := &http.Client{Transport: base}
			if lib == "httpretry" {
				client.Transport = &httpretry.Transport{Base: base, Policy: benchPolicy}
			}
			b.ReportAllocs()
			for b.Loop() {
				resp, err := client.Get(srv.URL)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}
