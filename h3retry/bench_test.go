package h3retry_test

import (
	"crypto/tls"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/quic-go/quic-go/http3"
	"github.com/recur-go/recur/h3retry"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/schedule"
)

// benchPolicy backs off from 100ms to 30s, at most three attempts, as
// httpretry's benchmarks do.
var benchPolicy schedule.Schedule = schedule.Intersect{A: schedule.Backoff(100*time.Millisecond, 30*time.Second), B: schedule.Times{N: 3}}

// BenchmarkGet is one successful GET on a loopback http3.Server, body
// read and closed, through a plain http3.Transport (lib=plain), through
// h3retry's Base alone (lib=base: its client trace), and through
// h3retry's httpretry.Transport over the Base (lib=h3retry), each on an
// http3.Transport of its own whose connection the first request opens.
//
// Besides the time, it reports cpu-ns/op: the CPU time the process
// (client, server and runtime together) spent per request, which a
// machine busy with other work inflates less than the wall-clock time.
func BenchmarkGet(b *testing.B) {
	s := newServer(b, "", func(_ int64, w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "hello") })
	_, roots := certs()
	for _, lib := range []string{"plain", "base", "h3retry"} {
		b.Run("lib="+lib, func(b *testing.B) {
			h3 := &http3.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}
			defer h3.Close()
			var rt http.RoundTripper = h3
			switch lib {
			case "base":
				rt = &h3retry.Base{Transport: h3}
			case "h3retry":
				rt = &httpretry.Transport{Base: &h3retry.Base{Transport: h3}, Policy: benchPolicy}
			}
			client := &http.Client{Transport: rt}
			get := func() {
				resp, err := client.Get(s.url)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			get() // the handshake, outside the measure
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				get()
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}
