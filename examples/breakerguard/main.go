// Command breakerguard guards calls to a failing service with a circuit
// breaker, one line a call: breaker.Do judges each HTTP response (a 503
// counts against the service, though http.Client returns no error for it)
// and refuses calls while the breaker is open, without sending them.
//
// It runs offline: the service is an httptest server inside the program
// that answers 503 to its first three requests and 200 afterwards.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

// judge counts a 5xx against the service, and a transport error too.
func judge(status int, err error) verdict.Verdict {
	if err != nil || status >= 500 {
		return verdict.Transient
	}
	return verdict.Success
}

// get makes one request and returns its status; the body is read and
// closed here, so Do's result is a plain int.
func get(ctx context.Context, client *http.Client, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// run makes calls one second apart on clock and writes what each got.
func run(ctx context.Context, w io.Writer, clock clockcap.Clock, client *http.Client, url string, calls int) error {
	b, err := breaker.New(breaker.Config{
		Name:                "service",
		ConsecutiveFailures: 3,
		OpenFor:             schedule.Exponential{Base: 5 * time.Second, FactorPct: 200, Cap: time.Minute},
		Clock:               clock,
	})
	if err != nil {
		return err
	}
	for i := 1; i <= calls; i++ {
		status, err := breaker.Do(ctx, b, judge, func(ctx context.Context) (int, error) {
			return get(ctx, client, url)
		})
		var open *breaker.OpenError
		switch {
		case errors.As(err, &open):
			left, _ := open.Remaining(clock.Now())
			fmt.Fprintf(w, "call %d: refused, breaker open for %v more\n", i, left)
		case err != nil:
			fmt.Fprintf(w, "call %d: %v\n", i, err)
		default:
			fmt.Fprintf(w, "call %d: %d (breaker %v)\n", i, status, b.State())
		}
		if err := clock.Sleep(ctx, time.Second); err != nil {
			return err
		}
	}
	return nil
}

func main() {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if n.Add(1) <= 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	// A virtual clock makes the open breaker's five seconds pass at once.
	clock := clockcap.Virtual(time.Now())
	if err := run(context.Background(), os.Stdout, clock, srv.Client(), srv.URL, 9); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
