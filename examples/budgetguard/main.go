// Command budgetguard is a gateway that forwards requests to a backend
// under adaptive throttling (the Google SRE book, chapter 21), one line a
// request: budget.Do records how the backend answered and, once the
// backend has been refusing most requests, sheds some locally, without
// sending them. A shed request is answered 503 by httpretry.Overloaded,
// which tells the client the gateway is overloaded.
//
// It runs offline: the backend is an httptest server inside the program
// that answers 503 to every request.
package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"time"

	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/verdict"
)

// judge counts a 5xx or a transport error as the backend refusing.
func judge(status int, err error) verdict.Verdict {
	if err != nil || status >= 500 {
		return verdict.Transient
	}
	return verdict.Success
}

// gateway forwards each request to backend under b.
func gateway(b budget.Budget, client *http.Client, backend string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		status, err := budget.Do(r.Context(), b, judge, func(ctx context.Context) (int, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, backend, nil)
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
		})
		if httpretry.Overloaded(w, err, time.Now()) {
			return // shed here: the backend never saw it
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.WriteHeader(status)
	})
}

// run sends n requests through a gateway to backend and returns how many
// the backend saw and how many the gateway shed.
func run(b budget.Budget, client *http.Client, backend string, n int) (sent, shed int) {
	gw := gateway(b, client, backend)
	for range n {
		rec := httptest.NewRecorder()
		gw.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
		if rec.Code == http.StatusServiceUnavailable && rec.Body.String() == http.StatusText(http.StatusServiceUnavailable)+"\n" {
			shed++
		}
	}
	return n - shed, shed
}

func main() {
	var seen atomic.Int64
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		seen.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer backend.Close()
	b, err := budget.NewAdaptive(budget.AdaptiveConfig{Clock: clockcap.Virtual(time.Now()), Random: randcap.Seeded(1)})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	_, shed := run(b, backend.Client(), backend.URL, 100)
	fmt.Printf("100 requests: the backend saw %d, the gateway shed %d\n", seen.Load(), shed)
}
