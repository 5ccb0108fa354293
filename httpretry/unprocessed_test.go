package httpretry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

func TestUnprocessed(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"dial refused", fmt.Errorf("get: %w", dial), true},
		{"dial limit", httpretry.ErrDialLimit, true},
		{"graceful GOAWAY past the stream", errors.New("http2: Transport received Server's graceful shutdown GOAWAY"), true},
		{"GOAWAY at or below the stream", errors.New("http2: server sent GOAWAY and closed the connection; LastStreamID=3"), false},
		{"reset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, false},
		{"server closed idle connection", errors.New("http: server closed idle connection"), false},
		{"EOF", io.EOF, false},
		{"nil", nil, false},
	} {
		if got := httpretry.Unprocessed(tc.err); got != tc.want {
			t.Errorf("%s: Unprocessed = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestQueryRetriedLikeGet: a QUERY answered 503 is retried, as a GET is
// and a POST without a key is not.
func TestQueryRetriedLikeGet(t *testing.T) {
	for _, tc := range []struct {
		method string
		want   int
	}{{"GET", 3}, {"QUERY", 3}, {"POST", 1}} {
		calls := 0
		base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			calls++
			return &http.Response{StatusCode: 503, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
		})
		tr := &httpretry.Transport{Base: base, Policy: schedule.Times{N: 3}, Options: retry.Options{Unthrottled: true}}
		req, err := http.NewRequestWithContext(context.Background(), tc.method, "http://x.test/", strings.NewReader("q"))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if calls != tc.want {
			t.Errorf("%s: %d attempts, want %d", tc.method, calls, tc.want)
		}
	}
}

// TestPerRequestSchedule: WithSchedule replaces the Transport's schedule
// for one request, WithoutRetry sends it once, and an invalid schedule
// fails before the first attempt.
func TestPerRequestSchedule(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ctx     func(context.Context) context.Context
		want    int
		wantErr bool
	}{
		{"the Transport's", func(ctx context.Context) context.Context { return ctx }, 3, false},
		{"WithSchedule", func(ctx context.Context) context.Context {
			return httpretry.WithSchedule(ctx, schedule.Times{N: 5})
		}, 5, false},
		{"WithoutRetry", httpretry.WithoutRetry, 1, false},
		{"invalid", func(ctx context.Context) context.Context {
			return httpretry.WithSchedule(ctx, schedule.Times{N: 0})
		}, 0, true},
	} {
		calls := 0
		base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			calls++
			return &http.Response{StatusCode: 503, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
		})
		tr := &httpretry.Transport{Base: base, Policy: schedule.Times{N: 3}, Options: retry.Options{Unthrottled: true}}
		req, err := http.NewRequestWithContext(tc.ctx(context.Background()), "GET", "http://x.test/", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := tr.RoundTrip(req)
		if (err != nil) != tc.wantErr {
			t.Fatalf("%s: err = %v", tc.name, err)
		}
		if resp != nil {
			resp.Body.Close()
		}
		if calls != tc.want {
			t.Errorf("%s: %d attempts, want %d", tc.name, calls, tc.want)
		}
	}
}

// TestThrottledByDefault: a Transport with a policy and no Budget
// stops retrying a failing target once A6's token bucket runs low; with
// Unthrottled it does not.
func TestThrottledByDefault(t *testing.T) {
	for _, tc := range []struct {
		unthrottled bool
		want        int
	}{{false, 3 + 2 + 8}, {true, 10 * 3}} { // 10 tokens, one per failure, retries while more than 5 are left
		calls := 0
		base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			calls++
			return &http.Response{StatusCode: 503, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
		})
		tr := &httpretry.Transport{Base: base, Policy: schedule.Times{N: 3}, Options: retry.Options{Unthrottled: tc.unthrottled}}
		host := fmt.Sprintf("http://x%d.test/", time.Now().UnixNano()) // a shared budget of this run's own
		for range 10 {
			req, _ := http.NewRequest("GET", host, nil)
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		if calls != tc.want {
			t.Errorf("Unthrottled %v: %d attempts for 10 requests, want %d", tc.unthrottled, calls, tc.want)
		}
	}
	_, err := (&httpretry.Transport{Policy: schedule.Times{N: 3}, Options: retry.Options{Unthrottled: true}, Budget: mustBudgets(t)}).RoundTrip(mustGet(t))
	if err == nil {
		t.Error("Budget and Options.Unthrottled together: no error")
	}
}

func mustBudgets(t *testing.T) *budget.Registry {
	t.Helper()
	r, err := budget.NewRegistry(budget.TokenBucketConfig{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustGet(t *testing.T) *http.Request {
	t.Helper()
	req, err := http.NewRequest("GET", "http://x.test/", nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// ownBudgets returns a registry of default budgets that no other test
// shares, for a test that counts attempts: Transports without a Budget
// share each target's budget with every call in the process, so a test's
// failures against a target would drain the next test's retries.
func ownBudgets() *budget.Registry {
	r, err := budget.NewRegistry(budget.DefaultConfig(), 0)
	if err != nil {
		panic(err)
	}
	return r
}
