package h3retry_test

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/h3retry"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/retry"
)

// startServer starts quic-go's http3.Server with handler h on a free
// loopback UDP port, with a self-signed certificate: it returns the
// server's URL, the pool that trusts its certificate, and the function
// that stops it.
func startServer(h http.Handler) (url string, roots *x509.CertPool, stop func()) {
	cert, roots := certs()
	udp, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		panic(err)
	}
	srv := &http3.Server{Handler: h, TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(udp)
	}()
	return "https://" + udp.LocalAddr().String(), roots, func() {
		srv.Close()
		udp.Close()
		<-done
	}
}

// A POST without an idempotency key that the server rejects twice with
// H3_REQUEST_REJECTED before it processes it. Both times, the server says
// it did not process it, so it may be sent again whatever its method:
// quic-go's http3.Transport sends it again once itself, and h3retry makes
// a new attempt for the second rejection. The order is placed once.
func ExampleNew() {
	var streams, orders atomic.Int64
	url, roots, stop := startServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if streams.Add(1) <= 2 {
			str, _ := w.(http3.HTTPStreamer).HTTPStream()
			str.CancelRead(quic.StreamErrorCode(http3.ErrCodeRequestRejected))
			str.CancelWrite(quic.StreamErrorCode(http3.ErrCodeRequestRejected))
			return
		}
		orders.Add(1)
		io.WriteString(w, "order placed")
	}))
	defer stop()

	h3 := &http3.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}
	defer h3.Close()
	tr, err := h3retry.New(h3, "fulljitter(10ms, 1s) & times(3)")
	if err != nil {
		panic(err)
	}
	client := &http.Client{Transport: tr}

	resp, err := client.Post(url, "text/plain", strings.NewReader("one book"))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.Status, string(body))
	fmt.Println("streams:", streams.Load(), "orders:", orders.Load())
	// Output:
	// 200 OK order placed
	// streams: 3 orders: 1
}

// The Base in an httpretry.Transport of your own, with every field of
// httpretry's: here a circuit breaker per target and an attempt timeout.
// The server answers 503 with Retry-After once; the GET waits the second
// it asks for, and is answered.
func ExampleBase() {
	var calls atomic.Int64
	url, roots, stop := startServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "quote: 42")
	}))
	defer stop()

	h3 := &http3.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}
	defer h3.Close()
	breakers, err := breaker.NewRegistry(breaker.Config{}, 0)
	if err != nil {
		panic(err)
	}
	client := &http.Client{Transport: &httpretry.Transport{
		Base:    &h3retry.Base{Transport: h3},
		Policy:  retry.DefaultSchedule(),
		Breaker: breakers,
		Options: retry.Options{AttemptTimeout: 2 * time.Second},
	}}

	start := time.Now()
	resp, err := client.Get(url)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.Status, string(body), "after", calls.Load(), "calls; waited at least 1s:", time.Since(start) >= time.Second)
	// Output: 200 OK quote: 42 after 2 calls; waited at least 1s: true
}

// Unprocessed is for a retry.Judge of raw HTTP/3 calls: a stream the
// server rejected was not processed; one it reset with an internal error
// may have been.
func ExampleUnprocessed() {
	rejected := &http3.Error{Remote: true, ErrorCode: http3.ErrCodeRequestRejected}
	internal := &http3.Error{Remote: true, ErrorCode: http3.ErrCodeInternalError}
	fmt.Println(h3retry.Unprocessed(fmt.Errorf("order: %w", rejected)), h3retry.Unprocessed(internal))
	// Output: true false
}
