package retry_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

// statusError is an HTTP answer that is not a success.
type statusError struct{ code int }

func (e statusError) Error() string { return fmt.Sprintf("HTTP %d", e.code) }

// The README's example: back off, give up after five attempts, and waste none
// on an error that will never come good. The clock and the random source
// are pinned, so the 30-second loop runs at once and prints the same waits
// every time.
func ExampleRetryWhile() {
	policy := schedule.Intersect{A: schedule.Backoff(100*time.Millisecond, 30*time.Second), B: schedule.Times{N: 5}}
	worthRetrying := func(err error) bool {
		var se statusError
		return !errors.As(err, &se) || se.code >= 500 // refuse 4xx
	}
	clock := clockcap.Virtual(time.Now())
	o := retry.Options{
		Caps: retry.Caps{Clock: clock, Random: randcap.Seeded(1)},
		Observer: retry.ObserverFunc(func(_ context.Context, e retry.Event) {
			if e.Kind == retry.Retrying {
				fmt.Printf("attempt %d: %v; retrying in %v\n", e.Attempt, e.Err, e.Delay.Round(time.Millisecond))
			}
		}),
	}
	_, err := retry.RetryWhile(context.Background(), o, policy, worthRetrying, func(context.Context) (string, error) {
		return "", statusError{503}
	})
	fmt.Println(err)

	_, err = retry.RetryWhile(context.Background(), o, policy, worthRetrying, func(context.Context) (string, error) {
		return "", statusError{404}
	})
	fmt.Println(err)
	// Output:
	// attempt 1: HTTP 503; retrying in 62ms
	// attempt 2: HTTP 503; retrying in 180ms
	// attempt 3: HTTP 503; retrying in 353ms
	// attempt 4: HTTP 503; retrying in 695ms
	// retry: gave up after 5 attempts (schedule exhausted): HTTP 503
	// HTTP 404
}

// A flaky operation succeeds on its third attempt.
func ExampleRetry() {
	o := retry.Options{Caps: retry.Caps{Clock: clockcap.Virtual(time.Now())}}
	calls := 0
	n, err := retry.Retry(context.Background(), o, schedule.Times{N: 5}, func(context.Context) (int, error) {
		if calls++; calls < 3 {
			return 0, errors.New("connection reset")
		}
		return 42, nil
	})
	fmt.Println(n, err, calls)
	// Output: 42 <nil> 3
}

// A classifier tells the runner, and whatever keeps score of the target,
// what each error means: 429 is retried without blaming the server, 5xx is
// retried and counts as a failure, any other status is returned.
func ExampleRetryIf() {
	classify := func(err error) verdict.Verdict {
		var se statusError
		switch {
		case !errors.As(err, &se):
			return verdict.Transient // network error
		case se.code == http.StatusTooManyRequests:
			return verdict.Retryable
		case se.code >= 500:
			return verdict.Transient
		}
		return verdict.Neutral
	}
	o := retry.Options{Caps: retry.Caps{Clock: clockcap.Virtual(time.Now())}}
	answers := []int{429, 503, 400}
	_, err := retry.RetryIf(context.Background(), o, schedule.Times{N: 5}, classify, func(context.Context) (string, error) {
		code := answers[0]
		answers = answers[1:]
		fmt.Println("got", code, classify(statusError{code}))
		return "", statusError{code}
	})
	fmt.Println(err)
	// Output:
	// got 429 retryable
	// got 503 transient
	// got 400 neutral
	// HTTP 400
}

// A server that answers "busy, come back in 5s" is obeyed: the wait is the
// longer of the schedule's delay and the pushback.
func ExampleAfter() {
	clock := clockcap.Virtual(time.Now())
	o := retry.Options{Caps: retry.Caps{Clock: clock}, MaxPushback: time.Minute}
	calls := 0
	_, err := retry.Retry(context.Background(), o, schedule.Spaced{Every: time.Second}, func(context.Context) (string, error) {
		if calls++; calls == 1 {
			return "", retry.After(errors.New("busy"), 5*time.Second)
		}
		return "ok", nil
	})
	fmt.Println(err, clock.Sleeps())
	// Output: <nil> [5s]
}

// An *Error says why the runner stopped and wraps the last error and, for
// a deadline, context.DeadlineExceeded.
//
// The deadline comes from the same clock the runner reads: the virtual
// clock, started at the real time.Now(). The runner measures the time left
// on that clock, while package context measures the deadline against real
// time; a virtual clock started at a fixed date in the past would hand the
// runner a context that had expired before the first attempt, and the
// example would print "deadline exceeded" for the wrong reason.
func ExampleError() {
	clock := clockcap.Virtual(time.Now())
	ctx, cancel := context.WithDeadline(context.Background(), clock.Now().Add(10*time.Second))
	defer cancel()
	refused := errors.New("connection refused")
	o := retry.Options{Caps: retry.Caps{Clock: clock}}
	_, err := retry.Retry(ctx, o, schedule.Spaced{Every: 4 * time.Second}, func(context.Context) (int, error) {
		return 0, refused
	})
	var e *retry.Error
	if errors.As(err, &e) {
		fmt.Println(e.Attempts, e.Reason)
	}
	fmt.Println(errors.Is(err, refused), errors.Is(err, context.DeadlineExceeded))
	fmt.Println(err)
	// Output:
	// 3 deadline exceeded
	// true true
	// retry: gave up after 3 attempts (deadline exceeded): connection refused
}
