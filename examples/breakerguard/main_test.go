package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/internal/leakcheck"
)

func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }

// TestRun: three 503s open the breaker; the calls in the next five seconds
// are refused without reaching the server; then a probe gets through and
// closes it.
func TestRun(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if n.Add(1) <= 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	defer srv.Client().CloseIdleConnections()
	var out bytes.Buffer
	if err := run(context.Background(), &out, clockcap.Virtual(time.Now()), srv.Client(), srv.URL, 10); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"call 1: 503 (breaker closed)",
		"call 2: 503 (breaker closed)",
		"call 3: 503 (breaker open)",
		"call 4: refused, breaker open for 4s more",
		"call 5: refused, breaker open for 3s more",
		"call 6: refused, breaker open for 2s more",
		"call 7: refused, breaker open for 1s more",
		"call 8: 200 (breaker closed)",
		"call 9: 200 (breaker closed)",
		"call 10: 200 (breaker closed)",
	}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSpace(out.String()), "\n")); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	if got := n.Load(); got != 6 {
		t.Errorf("server saw %d requests, want 6: none while open", got)
	}
}
