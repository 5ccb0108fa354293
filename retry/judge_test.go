package retry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
	"pgregory.net/rapid"
)

// response stands for an HTTP response: a status and a body to close.
type response struct {
	status int
	closed int
}

// byStatus retries a 503 and reports it as "status_503".
func byStatus(r *response, err error) retry.Judgement {
	switch {
	case err != nil:
		return retry.Judgement{Verdict: verdict.Transient, Reason: "conn"}
	case r.status == 503:
		return retry.Judgement{Verdict: verdict.Transient, Reason: "status_503"}
	}
	return retry.Judgement{Verdict: verdict.Success}
}

func closeBody(r *response) { r.closed++ }

func TestDoRetriesA503WithoutError(t *testing.T) {
	var got []*response
	op := func(context.Context) (*response, error) {
		r := &response{status: 503}
		if len(got) == 2 {
			r.status = 200
		}
		got = append(got, r)
		return r, nil
	}
	var recovered []any
	var h hookLog
	o := retry.Options{
		Caps:     retry.Caps{Clock: clockcap.Virtual(epoch), Random: randcap.Seeded(1)},
		Observer: retry.Observers(&h, on(retry.Recovered, func(e retry.Event) { recovered = append(recovered, e.Attempt, e.Label) })),
	}
	r, err := retry.Do(context.Background(), o, schedule.Times{N: 5}, byStatus, closeBody, op)
	if err != nil || r != got[2] {
		t.Fatalf("Do = %v, %v; want the third response, nil", r, err)
	}
	if diff := cmp.Diff([]int{1, 1, 0}, []int{got[0].closed, got[1].closed, got[2].closed}); diff != "" {
		t.Errorf("closes per response (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{3, "status_503"}, recovered); diff != "" {
		t.Errorf("Recovered events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"status_503", "status_503"}, h.reasons); diff != "" {
		t.Errorf("Retrying labels (-want +got):\n%s", diff)
	}
}

func TestDoGivesUpWithTheLastResult(t *testing.T) {
	var got []*response
	op := func(context.Context) (*response, error) {
		got = append(got, &response{status: 503})
		return got[len(got)-1], nil
	}
	var gaveUp *retry.Error
	o := retry.Options{Caps: retry.Caps{Clock: clockcap.Virtual(epoch)}, Observer: on(retry.GaveUp, func(e retry.Event) { gaveUp, _ = e.Err.(*retry.Error) })}
	r, err := retry.Do(context.Background(), o, schedule.Times{N: 3}, byStatus, closeBody, op)
	e := asError(t, err)
	want := retry.Error{Attempts: 3, Reason: retry.Exhausted, Label: "status_503"}
	if diff := cmp.Diff(want, *e); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
	if gaveUp != e {
		t.Errorf("GaveUp event had %v, want the returned error", gaveUp)
	}
	if r != got[2] || r.closed != 0 {
		t.Errorf("returned %+v, want the last response, open", r)
	}
	if err.Error() != "retry: gave up after 3 attempts (schedule exhausted): status_503" {
		t.Errorf("message %q", err)
	}
}

func TestDoJudgementRetryAfter(t *testing.T) {
	clock := clockcap.Virtual(epoch)
	n := 0
	judge := func(_ int, err error) retry.Judgement {
		if n < 3 {
			return retry.Judgement{Verdict: verdict.Retryable, RetryAfter: 7 * time.Second}
		}
		return retry.Judgement{Verdict: verdict.Success}
	}
	op := func(context.Context) (int, error) { n++; return n, nil }
	o := retry.Options{Caps: retry.Caps{Clock: clock, Random: randcap.Seeded(1)}}
	if _, err := retry.Do(context.Background(), o, schedule.Times{N: 5}, judge, nil, op); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]time.Duration{7 * time.Second, 7 * time.Second}, clock.Sleeps()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	refuse := func(int, error) retry.Judgement {
		return retry.Judgement{Verdict: verdict.Retryable, RetryAfter: -1}
	}
	_, err := retry.Do(context.Background(), o, schedule.Times{N: 5}, refuse, nil, op)
	if e := asError(t, err); e.Reason != retry.Refused {
		t.Errorf("negative RetryAfter: reason %v, want Refused", e.Reason)
	}
}

// TestAttemptOf: the attempt number op sees is the one the *Error counts,
// and Last is true on the last attempt the schedule allows.
func TestAttemptOf(t *testing.T) {
	type seen struct {
		Number int
		Last   bool
	}
	var got []seen
	op := func(ctx context.Context) (int, error) {
		a := retry.AttemptOf(ctx)
		got = append(got, seen{a.Number, a.Last})
		return 0, errFlaky
	}
	o := retry.Options{Caps: retry.Caps{Clock: clockcap.Virtual(epoch)}}
	_, err := retry.Retry(context.Background(), o, schedule.Times{N: 4}, op)
	e := asError(t, err)
	want := []seen{{1, false}, {2, false}, {3, false}, {4, true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("attempts seen (-want +got):\n%s", diff)
	}
	if e.Attempts != got[len(got)-1].Number {
		t.Errorf("Error.Attempts = %d, op last saw attempt %d", e.Attempts, got[len(got)-1].Number)
	}
	if a := retry.AttemptOf(context.Background()); a.Number != 1 || a.Last {
		t.Errorf("AttemptOf(Background) = %+v, want Number 1", a)
	}
}

func TestAttemptLeft(t *testing.T) {
	clock := clockcap.Virtual(future())
	ctx, cancel := context.WithDeadline(context.Background(), clock.Now().Add(time.Minute))
	defer cancel()
	var left []time.Duration
	op := func(ctx context.Context) (int, error) {
		if a := retry.AttemptOf(ctx); a.Number > 1 {
			d, ok := a.Left()
			if !ok {
				t.Error("Left: no deadline")
			}
			left = append(left, d)
		}
		return 0, errFlaky
	}
	s := schedule.Intersect{A: schedule.Exponential{Base: 10 * time.Second, FactorPct: 100, Cap: time.Minute}, B: schedule.Times{N: 3}}
	_, _ = retry.Retry(ctx, retry.Options{Caps: retry.Caps{Clock: clock}}, s, op)
	if diff := cmp.Diff([]time.Duration{50 * time.Second, 40 * time.Second}, left); diff != "" {
		t.Errorf("time left (-want +got):\n%s", diff)
	}
	if _, ok := retry.AttemptOf(context.Background()).Left(); ok {
		t.Error("Left without a deadline reports one")
	}
}

// TestDoBreakerRecordsJudgement: a judged (503, nil) counts against the
// target in the breaker.
func TestDoBreakerRecordsJudgement(t *testing.T) {
	b, err := breaker.New(breaker.Config{Clock: clockcap.Virtual(epoch), ConsecutiveFailures: 2})
	if err != nil {
		t.Fatal(err)
	}
	op := func(context.Context) (*response, error) { return &response{status: 503}, nil }
	o := retry.Options{Caps: retry.Caps{Clock: clockcap.Virtual(epoch)}, Breaker: b}
	_, err = retry.Do(context.Background(), o, schedule.Times{N: 5}, byStatus, closeBody, op)
	if !errors.Is(err, breaker.ErrOpen) {
		t.Errorf("err = %v, want the breaker open after judged failures", err)
	}
}

func TestDoFirstTrySuccessAllocatesNothing(t *testing.T) {
	ok := &response{status: 200}
	op := func(context.Context) (*response, error) { return ok, nil }
	ctx := context.Background()
	s := schedule.Times{N: 3}
	allocs := testing.AllocsPerRun(100, func() {
		_, _ = retry.Do(ctx, retry.Options{}, s, byStatus, closeBody, op)
	})
	if allocs != 0 {
		t.Errorf("Do, first-try success: %v allocs, want 0", allocs)
	}
}

func BenchmarkDoFirstTry(b *testing.B) {
	ok := &response{status: 200}
	op := func(context.Context) (*response, error) { return ok, nil }
	ctx := context.Background()
	var s schedule.Schedule = schedule.Times{N: 3}
	b.ReportAllocs()
	for b.Loop() {
		_, _ = retry.Do(ctx, retry.Options{}, s, byStatus, closeBody, op)
	}
}

// TestPropAttemptNumbers: over random schedules and failure counts, the
// attempt numbers op sees run 1, 2, 3, … and the last equals the attempts
// the *Error counts; Last is never true before an attempt the schedule
// still allows.
func TestPropAttemptNumbers(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSchedule().Draw(t, "schedule")
		failures := rapid.IntRange(0, 30).Draw(t, "failures")
		seed := rapid.Uint64().Draw(t, "seed")
		limits := schedule.Bounds(s)
		var seen []int
		judge := func(n int, err error) retry.Judgement {
			if err != nil {
				return retry.Judgement{Verdict: verdict.Transient, Reason: "flaky"}
			}
			return retry.Judgement{Verdict: verdict.Success}
		}
		o := retry.Options{Caps: retry.Caps{Clock: clockcap.Virtual(epoch), Random: randcap.Seeded(seed)}}
		_, err := retry.Do(context.Background(), o, s, judge, nil, func(ctx context.Context) (int, error) {
			a := retry.AttemptOf(ctx)
			if a.Last && a.Number < limits.MaxAttempts {
				t.Fatalf("attempt %d says Last, but the schedule allows %d", a.Number, limits.MaxAttempts)
			}
			seen = append(seen, a.Number)
			if len(seen) > 200 {
				return 0, nil // a schedule that never stops: end here
			}
			if len(seen) <= failures {
				return 0, errFlaky
			}
			return 0, nil
		})
		for i, n := range seen {
			if n != i+1 {
				t.Fatalf("attempt numbers %v, want 1, 2, 3, …", seen)
			}
		}
		var e *retry.Error
		if errors.As(err, &e) {
			if e.Attempts != len(seen) {
				t.Fatalf("Error.Attempts = %d, op saw %d attempts", e.Attempts, len(seen))
			}
			if e.Attempts > limits.MaxAttempts {
				t.Fatalf("%d attempts, more than the %d schedule.Bounds allows", e.Attempts, limits.MaxAttempts)
			}
		}
	})
}
