package retry_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

// A judge on the whole outcome: a 503 response comes with a nil error, yet
// it is retried, each dropped response is closed, and the reason label
// reaches the hooks.
func ExampleDo() {
	answers := []int{503, 503, 200}
	get := func(ctx context.Context) (*http.Response, error) {
		code := answers[retry.AttemptOf(ctx).Number-1]
		return &http.Response{StatusCode: code, Body: io.NopCloser(strings.NewReader(""))}, nil
	}
	judge := func(resp *http.Response, err error) retry.Judgement {
		switch {
		case err != nil:
			return retry.Judgement{Verdict: verdict.Transient, Reason: "conn_error"}
		case resp.StatusCode == http.StatusServiceUnavailable:
			return retry.Judgement{Verdict: verdict.Transient, Reason: "status_503"}
		}
		return retry.Judgement{Verdict: verdict.Success}
	}
	discard := func(resp *http.Response) {
		fmt.Println("discarding a", resp.StatusCode)
		resp.Body.Close()
	}
	o := retry.Options{
		Caps: retry.Caps{Clock: clockcap.Virtual(time.Now()), Random: randcap.Seeded(1)},
		Observer: retry.ObserverFunc(func(_ context.Context, e retry.Event) {
			if e.Kind == retry.Recovered {
				fmt.Printf("recovered from %s after %d attempts\n", e.Label, e.Attempt)
			}
		}),
	}
	policy := schedule.Intersect{A: schedule.Backoff(100*time.Millisecond, time.Second), B: schedule.Times{N: 5}}
	resp, err := retry.Do(context.Background(), o, policy, judge, discard, get)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	fmt.Println("got", resp.StatusCode)
	// Output:
	// discarding a 503
	// discarding a 503
	// recovered from status_503 after 3 attempts
	// got 200
}

// AttemptOf tells an operation which attempt it is making, and whether the
// schedule allows another.
func ExampleAttemptOf() {
	o := retry.Options{Caps: retry.Caps{Clock: clockcap.Virtual(time.Now())}}
	_, _ = retry.Retry(context.Background(), o, schedule.Times{N: 3}, func(ctx context.Context) (int, error) {
		a := retry.AttemptOf(ctx)
		fmt.Printf("attempt %d, last: %v\n", a.Number, a.Last)
		return 0, errFlaky
	})
	// Output:
	// attempt 1, last: false
	// attempt 2, last: false
	// attempt 3, last: true
}
