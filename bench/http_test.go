package bench

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/failsafe-go/failsafe-go/failsafehttp"
	"github.com/hashicorp/go-retryablehttp"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/schedule"
)

// BenchmarkHTTPGet is one successful GET of a 5-byte body from a loopback
// httptest server, read to its end and closed, through each library. Each
// gets a fresh *http.Transport of its own (net/http's defaults), so that
// the connection pool is alike; its connection is reused from the second
// iteration on. The retry policy never fires — every GET succeeds — so the
// rows show what a library costs a request that needs no retry: the
// overhead, which should stay within 2% of the plain client.
//
//   - plain: http.Client with the transport itself, the floor.
//   - recur: httpretry.Transport with full-jitter backoff from 100ms
//     capped at 10s, at most 3 attempts, through http.Client.
//   - retryablehttp: retryablehttp.Client with RetryMax 2 (3 attempts),
//     its defaults otherwise, and its Logger set to nil — the default
//     logger writes a line per request, which would measure log.Printf.
//     Called through its own Get, which is its documented API.
//   - failsafe-go: failsafehttp.NewRoundTripper with its HTTP retry
//     policy (NewRetryPolicyBuilder: 3 attempts), through http.Client.
func BenchmarkHTTPGet(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "hello")
	}))
	defer srv.Close()

	policy := schedule.Intersect{A: schedule.FullJitter(100*time.Millisecond, 10*time.Second), B: schedule.Times{N: 3}}
	libs := []struct {
		name string
		get  func(base *http.Transport) func(url string) (*http.Response, error)
	}{
		{"plain", func(base *http.Transport) func(string) (*http.Response, error) {
			return (&http.Client{Transport: base}).Get
		}},
		{"recur", func(base *http.Transport) func(string) (*http.Response, error) {
			return (&http.Client{Transport: &httpretry.Transport{Base: base, Policy: policy}}).Get
		}},
		{"retryablehttp", func(base *http.Transport) func(string) (*http.Response, error) {
			c := retryablehttp.NewClient()
			c.HTTPClient = &http.Client{Transport: base}
			c.RetryMax = 2
			c.Logger = nil
			return c.Get
		}},
		{"failsafe-go", func(base *http.Transport) func(string) (*http.Response, error) {
			rp := failsafehttp.NewRetryPolicyBuilder().
				WithBackoff(100*time.Millisecond, 10*time.Second).
				WithJitterFactor(1).
				Build()
			return (&http.Client{Transport: failsafehttp.NewRoundTripper(base, rp)}).Get
		}},
	}
	for _, lib := range libs {
		b.Run("lib="+lib.name, func(b *testing.B) {
			base := &http.Transport{}
			defer base.CloseIdleConnections()
			get := lib.get(base)
			b.ReportAllocs()
			for b.Loop() {
				resp, err := get(srv.URL)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, resp.Body); err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("status %d", resp.StatusCode)
				}
			}
		})
	}
}
