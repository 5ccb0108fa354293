package retry_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

const sec = time.Second

// TestSeedGivesUpAfterFiveAttempts is "it gives up after five
// attempts": the backoff policy, a target that never answers, the clock and
// the random pinned. It finishes at once, and its waits are exactly those
// the interpreter computes for seed 1.
func TestSeedGivesUpAfterFiveAttempts(t *testing.T) {
	clock := clockcap.Virtual(epoch)
	o := retry.Options{Caps: retry.Caps{Clock: clock, Random: randcap.Seeded(1)}}
	attempts := 0
	_, err := retry.RetryWhile(context.Background(), o, policy, worthAll, func(context.Context) (int, error) {
		attempts++
		return 0, errFlaky
	})
	e := asError(t, err)
	if diff := cmp.Diff(retry.Error{Attempts: 5, Reason: retry.Exhausted, Err: errFlaky}, *e, cmpopts.EquateErrors()); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
	if attempts != 5 {
		t.Errorf("op called %d times, want 5", attempts)
	}
	if !errors.Is(err, errFlaky) {
		t.Errorf("errors.Is(%v, errFlaky) = false", err)
	}
	var want []time.Duration
	for d := range interp.Delays(policy, 1) {
		want = append(want, d)
	}
	if diff := cmp.Diff(want, clock.Sleeps()); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
	if len(want) != 4 {
		t.Errorf("interp.Delays gave %d delays, want 4", len(want))
	}
}

// TestSeedTryHardThenOncePerMinute is "try hard three times, then once a
// minute", AndThen(Times(3), Spaced(60s)): three attempts at once, then one a minute on a grid
// anchored at the third attempt's start, so slow attempts do not drift.
func TestSeedTryHardThenOncePerMinute(t *testing.T) {
	s := schedule.AndThen{First: schedule.Times{N: 3}, Then: schedule.Spaced{Every: time.Minute}}
	tests := []struct {
		name       string
		took       time.Duration
		wantStarts []time.Duration
		wantDelays []time.Duration
		wantSleeps []time.Duration
	}{
		{
			name:       "instant attempts",
			wantStarts: []time.Duration{0, 0, 0, 60 * sec, 120 * sec, 180 * sec},
			wantDelays: []time.Duration{0, 0, 60 * sec, 60 * sec, 60 * sec},
			wantSleeps: []time.Duration{60 * sec, 60 * sec, 60 * sec},
		},
		{
			name:       "attempts of ten seconds",
			took:       10 * sec,
			wantStarts: []time.Duration{0, 10 * sec, 20 * sec, 80 * sec, 140 * sec, 200 * sec},
			wantDelays: []time.Duration{0, 0, 50 * sec, 50 * sec, 50 * sec},
			wantSleeps: []time.Duration{50 * sec, 50 * sec, 50 * sec},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := clockcap.Virtual(epoch)
			steps := fail(6, errFlaky)
			for i := range steps {
				steps[i].took = tt.took
			}
			steps[5].err = nil
			sc := &script{clock: clock, steps: steps}
			var h hookLog
			o := retry.Options{Caps: retry.Caps{Clock: clock, Random: randcap.Seeded(1)}, Observer: &h}
			v, err := retry.Retry(context.Background(), o, s, sc.op)
			if err != nil || v != 6 {
				t.Fatalf("Retry = %d, %v; want 6, nil", v, err)
			}
			if diff := cmp.Diff(tt.wantStarts, sc.starts); diff != "" {
				t.Errorf("attempt starts (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantDelays, h.delays); diff != "" {
				t.Errorf("OnRetry delays (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSleeps, clock.Sleeps()); diff != "" {
				t.Errorf("sleeps (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]int{1, 2, 3, 4, 5}, h.attempts); diff != "" {
				t.Errorf("OnRetry attempts (-want +got):\n%s", diff)
			}
		})
	}
}

// rule is one row of TestRules: a schedule, a scripted operation and what
// the call must do with it.
type rule struct {
	name     string
	sched    schedule.Schedule
	deadline time.Duration // from the virtual start; 0: none
	opts     retry.Options // Clock and Random are set by the test
	worth    func(error) bool
	classify func(error) verdict.Verdict // set: RetryIf instead of RetryWhile
	steps    []step

	attempts   int             // attempts made
	sleeps     []time.Duration // the virtual clock's sleeps
	reason     retry.Reason    // 0: nil or unchanged error
	unchanged  bool            // the last attempt's error comes back as is
	extraIs    []error         // errors.Is must also hold for these
	errMessage string          // the exact message, when set
}

func TestRules(t *testing.T) {
	exp := schedule.Exponential{Base: sec, FactorPct: 200, Cap: time.Minute}
	spaced := schedule.Spaced{Every: 10 * sec}
	notFatal := func(err error) bool { return !errors.Is(err, errFatal) }
	verdicts := func(m map[error]verdict.Verdict) func(error) verdict.Verdict {
		return func(err error) verdict.Verdict {
			for e, v := range m {
				if errors.Is(err, e) {
					return v
				}
			}
			return verdict.Transient
		}
	}
	ok := step{}
	rules := []rule{
		{name: "first try succeeds", sched: exp, steps: []step{ok}, attempts: 1},
		{name: "succeeds on the third attempt", sched: exp, steps: append(fail(2, errFlaky), ok),
			attempts: 3, sleeps: []time.Duration{sec, 2 * sec}},
		{name: "not worth retrying comes back unchanged", sched: exp, worth: notFatal,
			steps: fail(1, errFatal), attempts: 1, unchanged: true},
		{name: "not worth retrying after a retry", sched: exp, worth: notFatal,
			steps: append(fail(1, errFlaky), fail(1, errFatal)...), attempts: 2, unchanged: true, sleeps: []time.Duration{sec}},
		{name: "nil worth retries everything", sched: schedule.Times{N: 3}, steps: fail(3, errFatal),
			attempts: 3, reason: retry.Exhausted},
		{name: "schedule exhausted", sched: schedule.Times{N: 3}, worth: notFatal, steps: fail(3, errFlaky),
			attempts: 3, reason: retry.Exhausted,
			errMessage: "retry: gave up after 3 attempts (schedule exhausted): flaky"},
		{name: "Times(1) makes one attempt", sched: schedule.Times{N: 1}, steps: fail(1, errFlaky),
			attempts: 1, reason: retry.Exhausted,
			errMessage: "retry: gave up after 1 attempt (schedule exhausted): flaky"},
		{name: "deadline stops the retry that would pass it", sched: spaced, deadline: 25 * sec,
			steps: fail(3, errFlaky), attempts: 3, reason: retry.Deadline,
			sleeps: []time.Duration{10 * sec, 10 * sec}, extraIs: []error{context.DeadlineExceeded},
			errMessage: "retry: gave up after 3 attempts (deadline exceeded): flaky"},
		{name: "a retry that would start exactly at the deadline is not made", sched: spaced, deadline: 20 * sec,
			steps: fail(2, errFlaky), attempts: 2, reason: retry.Deadline,
			sleeps: []time.Duration{10 * sec}, extraIs: []error{context.DeadlineExceeded}},
		{name: "a retry that starts just before the deadline is made", sched: spaced, deadline: 20*sec + 1,
			steps: append(fail(2, errFlaky), ok), attempts: 3, sleeps: []time.Duration{10 * sec, 10 * sec}},
		{name: "a slow attempt uses up the deadline", sched: exp, deadline: 5 * sec,
			steps: []step{{took: 4500 * time.Millisecond, err: errFlaky}}, attempts: 1, reason: retry.Deadline,
			extraIs: []error{context.DeadlineExceeded}},
		{name: "pushback longer than the schedule's delay", sched: exp,
			steps: []step{{err: retry.After(errFlaky, 5*sec)}, {err: errFlaky}, ok}, attempts: 3,
			sleeps: []time.Duration{5 * sec, 2 * sec}},
		{name: "pushback shorter than the schedule's delay", sched: exp,
			steps: []step{{err: retry.After(errFlaky, 100*time.Millisecond)}, ok}, attempts: 2,
			sleeps: []time.Duration{sec}},
		{name: "pushback capped by MaxPushback", sched: exp, opts: retry.Options{MaxPushback: 10 * sec},
			steps: []step{{err: retry.After(errFlaky, time.Hour)}, ok}, attempts: 2,
			sleeps: []time.Duration{10 * sec}},
		{name: "MaxPushback never shortens the schedule's delay", sched: exp, opts: retry.Options{MaxPushback: 10 * time.Millisecond},
			steps: []step{{err: retry.After(errFlaky, time.Hour)}, ok}, attempts: 2,
			sleeps: []time.Duration{sec}},
		{name: "pushback past the deadline returns at once", sched: exp, deadline: time.Minute,
			steps: []step{{err: retry.After(errFlaky, 2*time.Minute)}}, attempts: 1, reason: retry.Deadline,
			extraIs: []error{context.DeadlineExceeded}},
		{name: "pushback within the deadline is obeyed", sched: exp, deadline: time.Minute,
			steps: []step{{err: retry.After(errFlaky, 30*sec)}, ok}, attempts: 2, sleeps: []time.Duration{30 * sec}},
		{name: "negative pushback stops", sched: exp,
			steps: []step{{err: retry.After(errFlaky, -1)}}, attempts: 1, reason: retry.Refused,
			errMessage: "retry: gave up after 1 attempt (retry refused by pushback): flaky"},
		{name: "zero pushback changes nothing", sched: exp,
			steps: []step{{err: retry.After(errFlaky, 0)}, ok}, attempts: 2, sleeps: []time.Duration{sec}},
		{name: "pushback wrapped by fmt.Errorf", sched: exp,
			steps: []step{{err: fmt.Errorf("get: %w", retry.After(errFlaky, 7*sec))}, ok}, attempts: 2,
			sleeps: []time.Duration{7 * sec}},
		{name: "pushback inside errors.Join", sched: exp,
			steps: []step{{err: errors.Join(errFatal, pushErr{d: 3 * sec, ok: true})}, ok}, attempts: 2,
			sleeps: []time.Duration{3 * sec}},
		{name: "a Pushback saying none is skipped", sched: exp,
			steps: []step{{err: fmt.Errorf("%w: %w", pushErr{d: -1}, retry.After(errFlaky, 4*sec))}, ok}, attempts: 2,
			sleeps: []time.Duration{4 * sec}},
		{name: "the outermost pushback wins", sched: exp,
			steps: []step{{err: retry.After(retry.After(errFlaky, -1), 4*sec)}, ok}, attempts: 2,
			sleeps: []time.Duration{4 * sec}},
		{name: "Transient is retried", sched: exp, classify: verdicts(nil),
			steps: append(fail(1, errFlaky), ok), attempts: 2, sleeps: []time.Duration{sec}},
		{name: "Retryable is retried", sched: exp, classify: verdicts(map[error]verdict.Verdict{errFlaky: verdict.Retryable}),
			steps: append(fail(1, errFlaky), ok), attempts: 2, sleeps: []time.Duration{sec}},
		{name: "Failure comes back unchanged", sched: exp, classify: verdicts(map[error]verdict.Verdict{errFatal: verdict.Failure}),
			steps: append(fail(1, errFlaky), fail(1, errFatal)...), attempts: 2, unchanged: true, sleeps: []time.Duration{sec}},
		{name: "Neutral comes back unchanged", sched: exp, classify: verdicts(map[error]verdict.Verdict{errFatal: verdict.Neutral}),
			steps: fail(1, errFatal), attempts: 1, unchanged: true},
		{name: "an error called Success comes back unchanged", sched: exp, classify: verdicts(map[error]verdict.Verdict{errFatal: verdict.Success}),
			steps: fail(1, errFatal), attempts: 1, unchanged: true},
		{name: "an unknown verdict is not retried", sched: exp, classify: verdicts(map[error]verdict.Verdict{errFatal: verdict.Verdict(42)}),
			steps: fail(1, errFatal), attempts: 1, unchanged: true},
		{name: "Retryable exhausts the schedule like Transient", sched: schedule.Times{N: 2},
			classify: verdicts(map[error]verdict.Verdict{errFlaky: verdict.Retryable}),
			steps:    fail(2, errFlaky), attempts: 2, reason: retry.Exhausted},
	}
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) { r.run(t) })
	}
}

func (r rule) run(t *testing.T) {
	start := epoch
	ctx := context.Background()
	if r.deadline > 0 {
		start = future()
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, start.Add(r.deadline))
		defer cancel()
	}
	clock := clockcap.Virtual(start)
	sc := &script{clock: clock, steps: r.steps}
	o := r.opts
	o.Clock, o.Random = clock, randcap.Seeded(7)
	var v int
	var err error
	if r.classify != nil {
		v, err = retry.RetryIf(ctx, o, r.sched, r.classify, sc.op)
	} else {
		v, err = retry.RetryWhile(ctx, o, r.sched, r.worth, sc.op)
	}
	if got := len(sc.starts); got != r.attempts {
		t.Errorf("%d attempts, want %d", got, r.attempts)
	}
	if v != len(sc.starts) {
		t.Errorf("value %d, want the last attempt's %d", v, len(sc.starts))
	}
	if diff := cmp.Diff(r.sleeps, clock.Sleeps()); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
	last := r.steps[min(r.attempts, len(r.steps))-1].err
	switch {
	case r.unchanged:
		if err != last {
			t.Errorf("error %v, want the attempt's own %v unchanged", err, last)
		}
	case r.reason == 0:
		if err != nil {
			t.Errorf("error %v, want nil", err)
		}
	default:
		e := asError(t, err)
		want := retry.Error{Attempts: r.attempts, Reason: r.reason, Err: last}
		if diff := cmp.Diff(want, *e, cmpopts.EquateErrors()); diff != "" {
			t.Errorf("*retry.Error (-want +got):\n%s", diff)
		}
		for _, target := range append([]error{last}, r.extraIs...) {
			if !errors.Is(err, target) {
				t.Errorf("errors.Is(%v, %v) = false", err, target)
			}
		}
		if r.reason != retry.Deadline && errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("errors.Is(%v, context.DeadlineExceeded) = true for reason %v", err, r.reason)
		}
	}
	if r.errMessage != "" && (err == nil || err.Error() != r.errMessage) {
		t.Errorf("message %q, want %q", err, r.errMessage)
	}
}

// TestOnRetry checks the hook's arguments: the failed attempt's number and
// error, and the wait chosen — pushback included.
func TestOnRetry(t *testing.T) {
	clock := clockcap.Virtual(epoch)
	pushed := retry.After(errFlaky, 5*sec)
	sc := &script{clock: clock, steps: []step{{err: errFlaky}, {err: pushed}, {err: errTimeout}, {}}}
	var h hookLog
	o := retry.Options{Caps: retry.Caps{Clock: clock, Random: randcap.Seeded(1)}, Observer: &h}
	s := schedule.Exponential{Base: sec, FactorPct: 200, Cap: time.Minute}
	if _, err := retry.Retry(context.Background(), o, s, sc.op); err != nil {
		t.Fatal(err)
	}
	want := hookLog{
		attempts: []int{1, 2, 3},
		errs:     []error{errFlaky, pushed, errTimeout},
		delays:   []time.Duration{sec, 5 * sec, 4 * sec},
		reasons:  []string{"", "", ""},
	}
	if diff := cmp.Diff(want, h, cmp.AllowUnexported(hookLog{}), cmpopts.EquateErrors()); diff != "" {
		t.Errorf("OnRetry calls (-want +got):\n%s", diff)
	}
}

// TestBadInput: what the caller got wrong comes back as a clear error,
// never a panic.
// TestBadInput: an invalid schedule (nil included), a nil op and invalid
// options are reported before the first attempt, by every entry point,
// whether op would have succeeded or failed, and op is never called.
func TestBadInput(t *testing.T) {
	ctx := context.Background()
	type wrapper struct{ schedule.Schedule } // satisfies Schedule, is no variant
	tests := []struct {
		name string
		o    retry.Options
		s    schedule.Schedule
		want string // the error's message
		path string // the *schedule.Error's Path, if the schedule is at fault
	}{
		{"zero Times", retry.Options{}, schedule.Times{}, "retry: invalid schedule: Times: n 0 is below 1", "Times"},
		{"invalid child", retry.Options{}, schedule.Intersect{A: schedule.Times{N: 0}, B: policy},
			"retry: invalid schedule: Intersect.A.Times: n 0 is below 1", "Intersect.A.Times"},
		{"invalid timed", retry.Options{}, schedule.UpTo{Inner: schedule.Spaced{}, Budget: time.Second},
			"retry: invalid schedule: UpTo.Inner.Spaced: every 0s is not positive", "UpTo.Inner.Spaced"},
		{"nil schedule", retry.Options{}, nil, "retry: invalid schedule: missing schedule", ""},
		{"nil child", retry.Options{}, schedule.Union{A: policy}, "retry: invalid schedule: Union.B: missing schedule", "Union.B"},
		{"not a variant", retry.Options{}, wrapper{policy},
			"retry: invalid schedule: retry_test.wrapper is not a schedule variant; pass the schedule it holds (for a parse.Policy p, p.Schedule)", ""},
		{"invalid schedule with a per-attempt timeout", retry.Options{AttemptTimeout: time.Second}, schedule.Times{},
			"retry: invalid schedule: Times: n 0 is below 1", "Times"},
		{"negative AttemptTimeout", retry.Options{AttemptTimeout: -1}, policy, "retry: negative Options.AttemptTimeout", ""},
		{"negative MaxPushback", retry.Options{MaxPushback: -1}, policy, "retry: negative Options.MaxPushback", ""},
	}
	type call func(retry.Options, schedule.Schedule, func(context.Context) (int, error)) (int, error)
	calls := map[string]call{
		"Retry": func(o retry.Options, s schedule.Schedule, op func(context.Context) (int, error)) (int, error) {
			return retry.Retry(ctx, o, s, op)
		},
		"RetryWhile": func(o retry.Options, s schedule.Schedule, op func(context.Context) (int, error)) (int, error) {
			return retry.RetryWhile(ctx, o, s, worthAll, op)
		},
		"RetryIf": func(o retry.Options, s schedule.Schedule, op func(context.Context) (int, error)) (int, error) {
			return retry.RetryIf(ctx, o, s, nil, op)
		},
	}
	for _, tt := range tests {
		for name, call := range calls {
			for _, fails := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/op fails %v", tt.name, name, fails), func(t *testing.T) {
					n := 0
					v, err := call(tt.o, tt.s, func(context.Context) (int, error) {
						n++
						if fails {
							return 2, errFlaky
						}
						return 1, nil
					})
					if n != 0 || v != 0 {
						t.Errorf("op called %d times, value %d; want no call and 0", n, v)
					}
					if err == nil || err.Error() != tt.want {
						t.Fatalf("error %v; want %s", err, tt.want)
					}
					var se *schedule.Error
					if isSched := strings.Contains(tt.want, "invalid schedule"); errors.As(err, &se) != isSched {
						t.Errorf("errors.As(%v, *schedule.Error) = %v; want %v", err, !isSched, isSched)
					} else if isSched && se.Path != tt.path {
						t.Errorf("schedule.Error.Path = %q; want %q", se.Path, tt.path)
					}
				})
			}
		}
	}
	t.Run("nil op", func(t *testing.T) {
		_, err := retry.Retry[int](ctx, retry.Options{}, policy, nil)
		if err == nil || err.Error() != "retry: nil operation" {
			t.Errorf("error %v, want retry: nil operation", err)
		}
	})
}

// TestBadInputGuarded: a call refused for an invalid schedule asks no
// breaker or budget and records nothing with them.
func TestBadInputGuarded(t *testing.T) {
	b, err := breaker.New(breaker.Config{Name: "db"})
	if err != nil {
		t.Fatal(err)
	}
	bucket, err := budget.NewTokenBucket(budget.TokenBucketConfig{})
	if err != nil {
		t.Fatal(err)
	}
	breakerBefore, bucketBefore := b.Stats(), bucket.Stats()
	calls := 0
	_, err = retry.Retry(context.Background(), retry.Options{Breaker: b, Budget: bucket}, schedule.Times{}, func(context.Context) (int, error) {
		calls++
		return 1, nil
	})
	var se *schedule.Error
	if !errors.As(err, &se) || calls != 0 {
		t.Errorf("error %v after %d calls; want a *schedule.Error after none", err, calls)
	}
	if diff := cmp.Diff(breakerBefore, b.Stats()); diff != "" {
		t.Errorf("breaker stats (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(bucketBefore, bucket.Stats()); diff != "" {
		t.Errorf("budget stats (-want +got):\n%s", diff)
	}
}

// TestPanicPropagates: a panic in op reaches the caller, on the first
// attempt and on a retry.
func TestPanicPropagates(t *testing.T) {
	for _, failFirst := range []bool{false, true} {
		t.Run(fmt.Sprint("after a failure ", failFirst), func(t *testing.T) {
			calls := 0
			defer func() {
				if r := recover(); r != "boom" {
					t.Errorf("recovered %v, want boom", r)
				}
				if want := map[bool]int{false: 1, true: 2}[failFirst]; calls != want {
					t.Errorf("%d calls, want %d", calls, want)
				}
			}()
			o := retry.Options{Caps: retry.Caps{Clock: clockcap.Virtual(epoch)}}
			_, _ = retry.Retry(context.Background(), o, policy, func(context.Context) (int, error) {
				if calls++; failFirst && calls == 1 {
					return 0, errFlaky
				}
				panic("boom")
			})
			t.Error("Retry returned instead of panicking")
		})
	}
}

// TestContextIsPassedOn: op receives the caller's context (values
// included) on every attempt.
func TestContextIsPassedOn(t *testing.T) {
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, "v")
	var got []any
	o := retry.Options{Caps: retry.Caps{Clock: clockcap.Virtual(epoch)}}
	_, _ = retry.Retry(ctx, o, schedule.Times{N: 3}, func(ctx context.Context) (int, error) {
		got = append(got, ctx.Value(key{}))
		return 0, errFlaky
	})
	if diff := cmp.Diff([]any{"v", "v", "v"}, got); diff != "" {
		t.Errorf("values seen by op (-want +got):\n%s", diff)
	}
}

// TestFirstTryTouchesNothing: a call that succeeds at once on an untimed
// schedule reads no clock and draws no seed; on a timed one it reads the
// clock once.
func TestFirstTryTouchesNothing(t *testing.T) {
	for _, tt := range []struct {
		s         schedule.Schedule
		wantReads int
	}{
		{policy, 0},
		{schedule.UpTo{Inner: policy, Budget: time.Minute}, 1},
		{schedule.AndThen{First: schedule.Times{N: 3}, Then: schedule.Spaced{Every: time.Minute}}, 1},
	} {
		c := &countingClock{Clock: clockcap.Virtual(epoch)}
		r := &countingRandom{}
		v, err := retry.Retry(context.Background(), retry.Options{Caps: retry.Caps{Clock: c, Random: r}}, tt.s, succeed)
		if v != 1 || err != nil {
			t.Fatalf("Retry = %d, %v", v, err)
		}
		if c.nows != tt.wantReads || c.sleeps != 0 || r.seeds != 0 {
			t.Errorf("%v: %d clock reads, %d sleeps, %d seeds; want %d, 0, 0", tt.s, c.nows, c.sleeps, r.seeds, tt.wantReads)
		}
	}
}

// TestZeroDelayArmsNoTimer: with no deadline and an untimed schedule a
// retry with no delay reads no clock; the clock's Sleep is asked for 0.
func TestZeroDelayArmsNoTimer(t *testing.T) {
	c := &countingClock{Clock: clockcap.Virtual(epoch)}
	r := &countingRandom{}
	sc := &script{clock: clockcap.Virtual(epoch), steps: append(fail(3, errFlaky), step{})}
	if _, err := retry.Retry(context.Background(), retry.Options{Caps: retry.Caps{Clock: c, Random: r}}, schedule.Times{N: 4}, sc.op); err != nil {
		t.Fatal(err)
	}
	if c.nows != 0 || r.seeds != 1 {
		t.Errorf("%d clock reads and %d seeds, want 0 and 1", c.nows, r.seeds)
	}
	if diff := cmp.Diff([]time.Duration{0, 0, 0}, c.slept); diff != "" {
		t.Errorf("sleeps asked for (-want +got):\n%s", diff)
	}
}

type countingClock struct {
	clockcap.Clock
	nows, sleeps int
	slept        []time.Duration
}

func (c *countingClock) Now() time.Time { c.nows++; return c.Clock.Now() }
func (c *countingClock) Sleep(ctx context.Context, d time.Duration) error {
	c.sleeps++
	c.slept = append(c.slept, d)
	return c.Clock.Sleep(ctx, d)
}

type countingRandom struct{ seeds int }

func (r *countingRandom) Seed() uint64 { r.seeds++; return 1 }

// flakyOp fails fails times, then succeeds; made once, so that a test of a
// call's allocations counts the runner's alone.
type flakyOp struct{ n, fails int }

func (f *flakyOp) call(context.Context) (int, error) {
	if f.n++; f.n <= f.fails {
		return 0, errFlaky
	}
	return f.n, nil
}

// TestRetryingCallAllocs: a call that retries makes one allocation, which
// holds its run, the run's nodes, the attempts' context and the held
// result, for a schedule of up to interp.BufferNodes nodes (the default
// policy has 4); a first-try success makes none.
func TestRetryingCallAllocs(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name  string
		s     schedule.Schedule
		fails int
		want  float64
	}{
		{"first try", retry.DefaultSchedule(), 0, 0},
		{"two failures", schedule.Intersect{A: schedule.Forever{}, B: schedule.Times{N: 3}}, 2, 1},
		{"three failures, zero delays", schedule.Intersect{A: schedule.Forever{}, B: schedule.Times{N: 4}}, 3, 1},
		{"timed", schedule.UpTo{Inner: schedule.Intersect{A: schedule.Forever{}, B: schedule.Times{N: 5}}, Budget: time.Minute}, 4, 1},
		// A schedule of more nodes than a Buffer holds allocates them apart.
		{"six nodes", schedule.UpTo{Inner: schedule.Intersect{A: schedule.Union{A: schedule.Forever{}, B: schedule.Forever{}}, B: schedule.Times{N: 5}}, Budget: time.Minute}, 4, 2},
	} {
		f := &flakyOp{fails: tt.fails}
		o := retry.Options{Caps: retry.Caps{Random: randcap.Seeded(1)}}
		got := testing.AllocsPerRun(50, func() {
			f.n = 0
			if _, err := retry.RetryWhile(ctx, o, tt.s, worthAll, f.call); err != nil {
				t.Fatal(err)
			}
		})
		if got != tt.want {
			t.Errorf("%s: %v allocs a call, want %v", tt.name, got, tt.want)
		}
	}
}
