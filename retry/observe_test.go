package retry_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

// events is an Observer that keeps every event, with Err reduced to its
// text so that the events compare with cmp.
type events []retry.Event

func (l *events) Observe(_ context.Context, e retry.Event) {
	if e.Err != nil {
		e.Err = errors.New(e.Err.Error())
	}
	*l = append(*l, e)
}

var cmpErrText = cmp.Comparer(func(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Error() == b.Error()
})

func TestObserverEvents(t *testing.T) {
	flaky := errors.New("flaky")
	const ms = time.Millisecond
	spaced := schedule.Intersect{A: schedule.Spaced{Every: 10 * ms}, B: schedule.Times{N: 3}}
	cases := []struct {
		name  string
		steps []step
		opts  func(*retry.Options)
		want  events
	}{{
		name:  "first attempt succeeds",
		steps: []step{{took: 4 * ms}},
		want:  events{{Kind: retry.Attempted, Target: "t", Attempt: 1, Verdict: verdict.Success, Elapsed: 4 * ms}},
	}, {
		name:  "recovers on the third attempt",
		steps: []step{{took: ms, err: flaky}, {took: 2 * ms, err: flaky}, {took: 3 * ms}},
		want: events{
			{Kind: retry.Attempted, Target: "t", Attempt: 1, Verdict: verdict.Transient, Elapsed: ms, Err: flaky},
			{Kind: retry.Retrying, Target: "t", Attempt: 1, Delay: 9 * ms, Err: flaky}, // Spaced counts from the attempt's start
			{Kind: retry.Attempted, Target: "t", Attempt: 2, Verdict: verdict.Transient, Elapsed: 2 * ms, Err: flaky},
			{Kind: retry.Retrying, Target: "t", Attempt: 2, Delay: 8 * ms, Err: flaky},
			{Kind: retry.Attempted, Target: "t", Attempt: 3, Verdict: verdict.Success, Elapsed: 3 * ms},
			{Kind: retry.Recovered, Target: "t", Attempt: 3},
		},
	}, {
		name:  "gives up when the schedule ends",
		steps: fail(3, flaky),
		want: events{
			{Kind: retry.Attempted, Target: "t", Attempt: 1, Verdict: verdict.Transient, Err: flaky},
			{Kind: retry.Retrying, Target: "t", Attempt: 1, Delay: 10 * ms, Err: flaky},
			{Kind: retry.Attempted, Target: "t", Attempt: 2, Verdict: verdict.Transient, Err: flaky},
			{Kind: retry.Retrying, Target: "t", Attempt: 2, Delay: 10 * ms, Err: flaky},
			{Kind: retry.Attempted, Target: "t", Attempt: 3, Verdict: verdict.Transient, Err: flaky},
			{Kind: retry.GaveUp, Target: "t", Attempt: 3, Reason: retry.Exhausted,
				Err: errors.New("retry: gave up after 3 attempts (schedule exhausted): flaky")},
		},
	}, {
		name:  "the budget throttles the first retry",
		steps: fail(3, flaky),
		opts: func(o *retry.Options) {
			b, err := budget.NewTokenBucket(budget.TokenBucketConfig{MaxTokens: 2})
			if err != nil {
				t.Fatal(err)
			}
			o.Budget = b
		},
		want: events{
			{Kind: retry.Attempted, Target: "t", Attempt: 1, Verdict: verdict.Transient, Err: flaky},
			{Kind: retry.GaveUp, Target: "t", Attempt: 1, Reason: retry.Budget,
				Err: errors.New("retry: gave up after 1 attempt (retry budget exhausted): flaky")},
		},
	}, {
		name:  "an open breaker refuses the first attempt",
		steps: fail(3, flaky),
		opts: func(o *retry.Options) {
			b, err := breaker.New(breaker.Config{Name: "t", Clock: o.Clock})
			if err != nil {
				t.Fatal(err)
			}
			b.ForceOpen()
			o.Breaker = b
		},
		want: events{
			{Kind: retry.GaveUp, Target: "t", Reason: retry.Open, Err: errors.New("breaker t: circuit forced open")},
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock := clockcap.Virtual(epoch)
			var got events
			o := retry.Options{Caps: retry.Caps{Clock: clock, Random: randcap.Seeded(1)}, Observer: &got, Target: "t"}
			if tc.opts != nil {
				tc.opts(&o)
			}
			sc := &script{clock: clock, steps: tc.steps}
			retry.Retry(context.Background(), o, spaced, sc.op)
			if diff := cmp.Diff(tc.want, got, cmpErrText); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestObserverJudgeLabel: the events carry the Judge's reason label, and
// Recovered says what the call recovered from.
func TestObserverJudgeLabel(t *testing.T) {
	clock := clockcap.Virtual(epoch)
	var got events
	o := retry.Options{Caps: retry.Caps{Clock: clock, Random: randcap.Seeded(1)}, Observer: &got}
	n := 0
	judge := func(v int, err error) retry.Judgement {
		if v < 2 {
			return retry.Judgement{Verdict: verdict.Retryable, Reason: "busy"}
		}
		return retry.Judgement{Verdict: verdict.Success}
	}
	retry.Do(context.Background(), o, schedule.Times{N: 3}, judge, nil, func(context.Context) (int, error) { n++; return n, nil })
	want := events{
		{Kind: retry.Attempted, Attempt: 1, Verdict: verdict.Retryable, Label: "busy"},
		{Kind: retry.Retrying, Attempt: 1, Label: "busy"},
		{Kind: retry.Attempted, Attempt: 2, Verdict: verdict.Success},
		{Kind: retry.Recovered, Attempt: 2, Label: "busy"},
	}
	if diff := cmp.Diff(want, got, cmpErrText); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestObserverNoAllocs: an Observer that keeps nothing costs a first-try
// success no allocation.
func TestObserverNoAllocs(t *testing.T) {
	var n int
	o := retry.Options{Observer: retry.ObserverFunc(func(context.Context, retry.Event) { n++ }), Target: "t"}
	ctx := context.Background()
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := retry.RetryWhile(ctx, o, policy, worthAll, succeed); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("allocs per call = %v, want 0", allocs)
	}
	if n == 0 {
		t.Error("the Observer saw no event")
	}
}

func TestEventKindString(t *testing.T) {
	got := fmt.Sprint(retry.Attempted, " ", retry.Retrying, " ", retry.GaveUp, " ", retry.Recovered, " ", retry.EventKind(9))
	if diff := cmp.Diff("attempted retrying gave-up recovered kind(9)", got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestObserverRealClock: with the real clock an attempt's Elapsed covers
// the time it took.
func TestObserverRealClock(t *testing.T) {
	var got events
	o := retry.Options{Observer: &got}
	const nap = 2 * time.Millisecond
	retry.Retry(context.Background(), o, schedule.Times{N: 1}, func(context.Context) (int, error) {
		time.Sleep(nap)
		return 1, nil
	})
	if len(got) != 1 || got[0].Kind != retry.Attempted || got[0].Elapsed < nap {
		t.Errorf("events = %+v, want one Attempted with Elapsed >= %v", got, nap)
	}
}
