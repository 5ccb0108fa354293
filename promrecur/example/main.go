// Command example runs three flaky HTTP servers on 127.0.0.1, calls them
// through httpretry with a circuit breaker and a retry budget per
// target, and serves the client's metrics on /metrics, so that the
// Grafana dashboard of docs/metrics.md can be tried in a minute:
//
//	go run ./example -listen 127.0.0.1:9464 -for 5m
//
// The servers are "steady" (1% of answers are 503), "flaky" (25%) and
// "outage" (every answer is 503 for 10 s of every 30 s, starting 20 s
// in). The program stops after -for, or at Ctrl-C when -for is 0.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/promrecur"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run is the program: it returns when ctx is done or -for has passed.
// It prints the metrics address once every server has been called.
func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("example", flag.ContinueOnError)
	fs.SetOutput(out)
	listen := fs.String("listen", "127.0.0.1:9464", "address of the /metrics server")
	runFor := fs.Duration("for", 0, "stop after this long (0: run until interrupted)")
	rate := fs.Int("rate", 20, "requests per second to each server")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *runFor < 0 || *rate <= 0 {
		return fmt.Errorf("-for must not be negative and -rate must be positive (got %v, %d)", *runFor, *rate)
	}
	if *runFor > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *runFor)
		defer cancel()
	}

	// The client: one breaker and one token bucket per target.
	breakers, err := breaker.NewRegistry(breaker.Config{}, 0)
	if err != nil {
		return err
	}
	budgets, err := budget.NewRegistry(budget.TokenBucketConfig{}, 0)
	if err != nil {
		return err
	}
	reg := prometheus.NewRegistry()
	metrics, err := promrecur.New(promrecur.Config{Client: "example", Registerer: reg, Breaker: breakers, Budget: budgets})
	if err != nil {
		return err
	}
	tr, err := httpretry.New(&http.Transport{MaxIdleConnsPerHost: 16}, "fulljitter(50ms, 1s) & times(4)")
	if err != nil {
		return err
	}
	defer tr.CloseIdleConnections()
	tr.Breaker, tr.Budget, tr.Options.Observer = breakers, budgets, metrics
	client := &http.Client{Transport: tr, Timeout: 5 * time.Second}

	// The servers.
	start := time.Now()
	servers := []struct {
		name string
		fail func() bool
	}{
		{"steady", func() bool { return rand.IntN(100) < 1 }},
		{"flaky", func() bool { return rand.IntN(100) < 25 }},
		{"outage", func() bool { s := time.Since(start) % (30 * time.Second); return s >= 20*time.Second }},
	}
	var urls []string
	var closers []func()
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	for _, s := range servers {
		url, closeFn, err := serve("127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			time.Sleep(time.Duration(1+rand.IntN(20)) * time.Millisecond) // some work
			if s.fail() {
				http.Error(w, s.name+" is failing", http.StatusServiceUnavailable)
				return
			}
			fmt.Fprintln(w, s.name, "ok")
		}))
		if err != nil {
			return err
		}
		urls = append(urls, url)
		closers = append(closers, closeFn)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	metricsURL, closeMetrics, err := serve(*listen, mux)
	if err != nil {
		return err
	}
	closers = append(closers, closeMetrics)

	call := func(url string) {
		ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
		if err != nil {
			return
		}
		resp, err := client.Do(req)
		if err != nil {
			return // counted in the metrics; a real program would log it
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	for i, url := range urls {
		call(url)
		fmt.Fprintf(out, "target %s is %s\n", url, servers[i].name)
	}
	fmt.Fprintf(out, "calling %d servers; metrics at %s/metrics\n", len(urls), metricsURL)

	var wg sync.WaitGroup
	for _, url := range urls {
		wg.Go(func() {
			tick := time.NewTicker(time.Second / time.Duration(*rate))
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
					call(url)
				}
			}
		})
	}
	wg.Wait()
	return nil
}

// serve serves h on addr until the returned function is called, which
// closes the server and waits for it.
func serve(addr string, h http.Handler) (url string, closeFn func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Print(err)
		}
	}()
	return "http://" + ln.Addr().String(), func() { srv.Close(); <-done }, nil
}
