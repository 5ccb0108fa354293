// Command pollhealth polls a health endpoint every 200ms until it fails,
// "every thirty seconds until something breaks" sped up, and
// reports how many checks passed.
//
// It runs offline: the endpoint is an httptest server inside the program
// that is healthy for five checks and then starts answering 500. A second
// loop shows the other way Repeat ends: a schedule that runs out (UpTo a
// second), with the count of checks that passed.
package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"time"

	"github.com/recur-go/recur/repeat"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// check makes one health check: any answer but 200 is an error.
func check(ctx context.Context, client *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("health check: %s", resp.Status)
	}
	return nil
}

// watch checks url on schedule s until a check fails or s ends, and
// returns how many passed.
func watch(ctx context.Context, o repeat.Options, s schedule.Schedule, client *http.Client, url string) (int, error) {
	return repeat.Repeat(ctx, o, s, func(ctx context.Context) error { return check(ctx, client, url) })
}

func main() {
	var checks atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/health" && checks.Add(1) > 5 {
			http.Error(w, "database unreachable", http.StatusInternalServerError)
			return
		}
		fmt.Fprintln(w, "ok")
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	every := schedule.Spaced{Every: 200 * time.Millisecond}
	o := repeat.Options{Observer: retry.ObserverFunc(func(_ context.Context, e retry.Event) {
		fmt.Printf("check %d passed; next in %v\n", e.Attempt, e.Delay.Round(10*time.Millisecond))
	})}
	n, err := watch(ctx, o, every, srv.Client(), srv.URL+"/health")
	fmt.Printf("%d checks passed, then: %v\n", n, err)

	n, err = watch(ctx, repeat.Options{}, schedule.UpTo{Inner: every, Budget: time.Second}, srv.Client(), srv.URL+"/ready")
	fmt.Printf("readiness: %d checks in a second, error %v\n", n, err)
	if ctx.Err() != nil {
		os.Exit(1)
	}
}
