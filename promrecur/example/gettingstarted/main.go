// Command gettingstarted is the program of docs/getting-started.md: each Go
// block of that page is a run of its lines, in order. It starts a local
// quote server that fails every other request, then calls it the ways the
// page shows, one step at a time: a retry with a fixed policy, a policy
// read from a config file, a circuit breaker through an outage, an HTTP
// client that retries by itself, and the Prometheus series of it all.
//
//	go run ./promrecur/example/gettingstarted
//
// (from the repository root). It prints what each step did and exits.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/promrecur"
	"github.com/recur-go/recur/retry"
)

// quotePolicy is fixed in the program, so MustParse is the right call: a
// typo panics at start-up, before any request is made.
var quotePolicy = parse.MustParse("fulljitter(100ms, 2s) & times(3)")

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run is the program; it writes what each step did to out.
func run(ctx context.Context, out io.Writer) error {
	srv, err := startQuoteServer()
	if err != nil {
		return err
	}
	defer srv.Close()
	url := srv.URL + "/quote"
	httpClient := &http.Client{Transport: &http.Transport{}, Timeout: 5 * time.Second}
	defer httpClient.CloseIdleConnections()

	// Step 1: retry a call.
	quote, err := retry.Retry(ctx, retry.Options{Target: "quotes"}, quotePolicy,
		func(ctx context.Context) (string, error) { return fetchQuote(ctx, httpClient, url) })
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "step 1: %s (after %d requests)\n", quote, srv.Requests())

	// Step 2: the policy comes from the config file.
	type Config struct {
		Retry parse.Policy `json:"retry"`
	}
	var cfg Config
	if err := json.Unmarshal([]byte(`{"retry": "fulljitter(50ms, 1s) & times(4)"}`), &cfg); err != nil {
		return err
	}
	policy := cfg.Retry.Schedule
	if policy == nil {
		policy = retry.DefaultSchedule() // the field was not set
	}
	fmt.Fprintf(out, "step 2: policy %v\n", policy)

	var bad Config
	err = json.Unmarshal([]byte(`{"retry": "fulljitter(50ms, 1s) & tims(4)"}`), &bad)
	fmt.Fprintf(out, "step 2: a typo is an error:\n%v\n", err)

	// Step 3: a circuit breaker and metrics.
	reg := prometheus.NewRegistry()
	metrics, err := promrecur.New(promrecur.Config{Client: "gettingstarted", Registerer: reg})
	if err != nil {
		return err
	}
	quotesBreaker, err := breaker.New(breaker.Config{Name: "quotes"})
	if err != nil {
		return err
	}
	if err := metrics.AddBreaker("quotes", quotesBreaker); err != nil {
		return err
	}
	opts := retry.Options{Target: "quotes", Breaker: quotesBreaker, Observer: metrics}

	srv.SetDown(true) // the outage begins
	for i := 1; i <= 4; i++ {
		_, err := retry.Retry(ctx, opts, policy,
			func(ctx context.Context) (string, error) { return fetchQuote(ctx, httpClient, url) })
		var e *retry.Error
		switch {
		case errors.Is(err, breaker.ErrOpen):
			fmt.Fprintf(out, "step 3: call %d refused by the open breaker\n", i)
		case errors.As(err, &e):
			fmt.Fprintf(out, "step 3: call %d gave up, %v, attempts made: %d\n", i, e.Reason, e.Attempts)
		}
	}
	fmt.Fprintf(out, "step 3: breaker %v, the server saw %d requests\n", quotesBreaker.State(), srv.Requests())
	srv.SetDown(false) // the outage is over

	// Step 4: an HTTP client that retries by itself.
	tr := &httpretry.Transport{Policy: policy, Options: retry.Options{Observer: metrics}}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "step 4: %s %s", resp.Status, body)

	// Step 5: serve the metrics.
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	metricsSrv, err := serve(mux)
	if err != nil {
		return err
	}
	defer metricsSrv.Close()
	page, err := fetch(ctx, httpClient, metricsSrv.URL+"/metrics")
	if err != nil {
		return err
	}
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(line, "recur_retries_total") || strings.HasPrefix(line, "recur_giveups_total") ||
			strings.HasPrefix(line, "recur_breaker_state") {
			fmt.Fprintln(out, "step 5:", line)
		}
	}
	return nil
}

// fetchQuote gets one quote. A status other than 200 is an error, which
// retry.Retry retries.
func fetchQuote(ctx context.Context, client *http.Client, url string) (string, error) {
	quote, err := fetch(ctx, client, url)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(quote), nil
}

// fetch gets url's body; a status other than 200 is an error.
func fetch(ctx context.Context, client *http.Client, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return string(body), nil
}

// quoteServer answers /quote with 503 on every odd request, and on every
// request while it is down.
type quoteServer struct {
	*server
	requests atomic.Int64
	down     atomic.Bool
}

func startQuoteServer() (*quoteServer, error) {
	q := &quoteServer{}
	s, err := serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n := q.requests.Add(1); q.down.Load() || n%2 == 1 {
			http.Error(w, "try again", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "Simplicity is prerequisite for reliability.")
	}))
	q.server = s
	return q, err
}

// Requests is how many requests the server has had.
func (q *quoteServer) Requests() int64 { return q.requests.Load() }

// SetDown starts or ends an outage.
func (q *quoteServer) SetDown(down bool) { q.down.Store(down) }

// server is an HTTP server on a free port of 127.0.0.1.
type server struct {
	URL  string
	srv  *http.Server
	done chan struct{}
}

func serve(h http.Handler) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &server{URL: "http://" + ln.Addr().String(), srv: &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Print(err)
		}
	}()
	return s, nil
}

// Close stops the server and waits for it.
func (s *server) Close() {
	s.srv.Close()
	<-s.done
}
