package retry_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
	"pgregory.net/rapid"
)

// The hedging tests run the real clock inside a testing/synctest bubble:
// time moves only when every goroutine waits, so a 200ms tail takes no
// real time and every start is exact.

// copies is an operation whose n-th copy (from 1) takes took(n) and returns
// answer(n); it records when each copy started and whether its context was
// canceled before it finished.
type copies struct {
	took   func(n int) time.Duration
	answer func(n int) (int, error)

	mu       sync.Mutex
	begin    time.Time
	starts   []time.Duration
	canceled []int
	inflight int
	most     int // copies in flight at once, at the most
}

func (c *copies) op(ctx context.Context) (int, error) {
	n := retry.AttemptOf(ctx).Number
	c.mu.Lock()
	c.starts = append(c.starts, time.Since(c.begin))
	c.inflight++
	c.most = max(c.most, c.inflight)
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.inflight--
		c.mu.Unlock()
	}()
	select {
	case <-time.After(c.took(n)):
		return c.answer(n)
	case <-ctx.Done():
		c.mu.Lock()
		c.canceled = append(c.canceled, n)
		c.mu.Unlock()
		return -n, ctx.Err()
	}
}

func byError(_ int, err error) retry.Judgement {
	if err == nil {
		return retry.Judgement{Verdict: verdict.Success}
	}
	return retry.Judgement{Verdict: verdict.Transient}
}

func answerN(n int) (int, error) { return n, nil }

var hedge10ms = schedule.Intersect{A: schedule.Spaced{Every: 10 * time.Millisecond}, B: schedule.Times{N: 3}}

// A slow first copy loses to a second started 10ms later, which answers
// in 2ms: the call takes 12ms, not 200, and the first copy is canceled and
// its result discarded once.
func TestHedgeBeatsTheTail(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &copies{begin: time.Now(), answer: answerN, took: func(n int) time.Duration {
			if n == 1 {
				return 200 * time.Millisecond
			}
			return 2 * time.Millisecond
		}}
		var discarded []int
		var mu sync.Mutex
		var kinds []retry.EventKind
		o := retry.Options{Observer: retry.ObserverFunc(func(_ context.Context, e retry.Event) {
			mu.Lock()
			kinds = append(kinds, e.Kind)
			mu.Unlock()
		})}
		begin := time.Now()
		v, err := retry.Hedge(context.Background(), o, hedge10ms, byError, func(v int) {
			mu.Lock()
			discarded = append(discarded, v)
			mu.Unlock()
		}, c.op)
		took := time.Since(begin)
		synctest.Wait() // the canceled copy returns and is discarded
		if err != nil || v != 2 {
			t.Fatalf("Hedge = %d, %v; want copy 2's answer", v, err)
		}
		if took != 12*time.Millisecond {
			t.Errorf("the call took %v; want 12ms", took)
		}
		mu.Lock()
		defer mu.Unlock()
		if diff := cmp.Diff([]int{-1}, discarded); diff != "" {
			t.Errorf("discarded (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]time.Duration{0, 10 * time.Millisecond}, c.starts); diff != "" {
			t.Errorf("copy starts (-want +got):\n%s", diff)
		}
		want := []retry.EventKind{retry.Hedged, retry.Attempted, retry.HedgeCanceled, retry.HedgeWon}
		if diff := cmp.Diff(want, kinds); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
	})
}

// An answer before the first delay starts no other copy.
func TestHedgeFastCallOneCopy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &copies{begin: time.Now(), answer: answerN, took: func(int) time.Duration { return 2 * time.Millisecond }}
		v, err := retry.Hedge(context.Background(), retry.Options{}, hedge10ms, byError, nil, c.op)
		synctest.Wait()
		if err != nil || v != 1 || len(c.starts) != 1 {
			t.Errorf("Hedge = %d, %v after %d copies; want copy 1's answer, alone", v, err, len(c.starts))
		}
	})
}

// A non-fatal answer starts the next copy at once, without waiting for its
// delay; when every copy has failed so, the call gives up with the last
// answer, and every earlier answer is discarded.
func TestHedgeNonFatalStartsNextAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		errBusy := errors.New("unavailable")
		c := &copies{begin: time.Now(), took: func(int) time.Duration { return time.Millisecond },
			answer: func(n int) (int, error) { return n, errBusy }}
		var discarded []int
		s := schedule.Intersect{A: schedule.Spaced{Every: time.Second}, B: schedule.Times{N: 3}}
		v, err := retry.Hedge(context.Background(), retry.Options{}, s, byError, func(v int) { discarded = append(discarded, v) }, c.op)
		var re *retry.Error
		if !errors.As(err, &re) || re.Reason != retry.Exhausted || re.Attempts != 3 || !errors.Is(err, errBusy) || v != 3 {
			t.Fatalf("Hedge = %d, %v; want copy 3's answer with an Exhausted give-up after 3", v, err)
		}
		want := []time.Duration{0, time.Millisecond, 2 * time.Millisecond}
		if diff := cmp.Diff(want, c.starts); diff != "" {
			t.Errorf("copy starts (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]int{1, 2}, discarded); diff != "" {
			t.Errorf("discarded (-want +got):\n%s", diff)
		}
	})
}

// A fatal answer (a verdict not retried) ends the call and cancels every
// copy in flight.
func TestHedgeFatalEndsAllCopies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		errBad := errors.New("invalid argument")
		c := &copies{begin: time.Now(), took: func(n int) time.Duration {
			if n == 3 {
				return time.Millisecond
			}
			return time.Second
		}, answer: func(n int) (int, error) { return n, errBad }}
		judge := func(_ int, err error) retry.Judgement {
			if errors.Is(err, errBad) {
				return retry.Judgement{Verdict: verdict.Failure}
			}
			return byError(0, err)
		}
		v, err := retry.Hedge(context.Background(), retry.Options{}, hedge10ms, judge, nil, c.op)
		synctest.Wait()
		if err != errBad || v != 3 {
			t.Fatalf("Hedge = %d, %v; want copy 3's fatal answer, unchanged", v, err)
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if diff := cmp.Diff([]int{1, 2}, sorted(c.canceled)); diff != "" {
			t.Errorf("canceled copies (-want +got):\n%s", diff)
		}
	})
}

func sorted(s []int) []int {
	out := append([]int(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// No copy starts at or after the deadline; the call ends at the deadline
// with the context's error.
func TestHedgeNoCopyPastTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &copies{begin: time.Now(), answer: answerN, took: func(int) time.Duration { return time.Hour }}
		ctx, cancel := context.WithTimeout(context.Background(), 25*time.Millisecond)
		defer cancel()
		s := schedule.Intersect{A: schedule.Spaced{Every: 10 * time.Millisecond}, B: schedule.Times{N: 5}}
		_, err := retry.Hedge(ctx, retry.Options{}, s, byError, nil, c.op)
		synctest.Wait()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v; want the deadline", err)
		}
		if diff := cmp.Diff([]time.Duration{0, 10 * time.Millisecond, 20 * time.Millisecond}, c.starts); diff != "" {
			t.Errorf("copy starts (-want +got):\n%s", diff)
		}
	})
}

// An open breaker starts no copy; the copies' verdicts are recorded, a
// canceled loser's as Neutral; the budget throttles hedges as it does
// retries (A6).
func TestHedgeGuards(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, err := breaker.New(breaker.Config{Name: "hedge", ConsecutiveFailures: 1})
		if err != nil {
			t.Fatal(err)
		}
		errDown := errors.New("down")
		c := &copies{begin: time.Now(), took: func(int) time.Duration { return time.Millisecond },
			answer: func(n int) (int, error) { return n, errDown }}
		judge := func(_ int, err error) retry.Judgement { return retry.Judgement{Verdict: verdict.Failure} }
		o := retry.Options{Breaker: b}
		if _, err := retry.Hedge(context.Background(), o, hedge10ms, judge, nil, c.op); err != errDown {
			t.Fatalf("first call: %v; want the copy's failure", err)
		}
		calls := len(c.starts)
		if _, err := retry.Hedge(context.Background(), o, hedge10ms, judge, nil, c.op); !errors.Is(err, breaker.ErrOpen) || len(c.starts) != calls {
			t.Errorf("through an open breaker: %v after %d more copies; want ErrOpen and none", err, len(c.starts)-calls)
		}

		// A bucket below half refuses every hedge: one copy per call.
		tb, _ := budget.NewTokenBucket(budget.TokenBucketConfig{MaxTokens: 2})
		tb.Record(verdict.Failure)
		slow := &copies{begin: time.Now(), answer: answerN, took: func(int) time.Duration { return 50 * time.Millisecond }}
		if v, err := retry.Hedge(context.Background(), retry.Options{Budget: tb}, hedge10ms, byError, nil, slow.op); err != nil || v != 1 || len(slow.starts) != 1 {
			t.Errorf("throttled: Hedge = %d, %v after %d copies; want copy 1's answer, alone", v, err, len(slow.starts))
		}
	})
}

// A done context starts no copy.
func TestHedgeDoneContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := 0
	_, err := retry.Hedge(ctx, retry.Options{}, hedge10ms, nil, nil, func(context.Context) (int, error) { calls++; return 0, nil })
	if calls != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("%d copies, err %v; want none and context.Canceled", calls, err)
	}
}

// With any schedule and any latencies, a hedged call never has more copies
// in flight than the schedule's bound on attempts (and MaxCopies), never
// starts a copy at or after the deadline, and hands every result it does
// not return to discard exactly once.
func TestPropHedge(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s := genSchedule().Draw(rt, "s")
		lat := rapid.SliceOfN(rapid.IntRange(0, 50), 1, 8).Draw(rt, "latency ms")
		fails := rapid.SliceOfN(rapid.Bool(), 1, 8).Draw(rt, "fails")
		deadline := time.Duration(rapid.IntRange(1, 100).Draw(rt, "deadline ms")) * time.Millisecond
		synctest.Test(t, func(t *testing.T) {
			c := &copies{begin: time.Now(),
				took: func(n int) time.Duration { return time.Duration(lat[(n-1)%len(lat)]) * time.Millisecond },
				answer: func(n int) (int, error) {
					if fails[(n-1)%len(fails)] {
						return n, errFlaky
					}
					return n, nil
				}}
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			var discarded atomic.Int64
			seen := sync.Map{}
			v, _ := retry.Hedge(ctx, retry.Options{}, s, byError, func(v int) {
				discarded.Add(1)
				if _, dup := seen.LoadOrStore(v, true); dup {
					rt.Errorf("result %d discarded twice", v)
				}
			}, c.op)
			synctest.Wait()
			c.mu.Lock()
			defer c.mu.Unlock()
			bound := min(schedule.Bounds(s).MaxAttempts, retry.MaxCopies)
			if c.most > bound || len(c.starts) > bound {
				rt.Errorf("%v: %d copies, %d at once; the bound is %d", s, len(c.starts), c.most, bound)
			}
			for _, st := range c.starts {
				if st >= deadline {
					rt.Errorf("%v: a copy started at %v, at or after the deadline %v", s, st, deadline)
				}
			}
			returned := int64(0)
			if v != 0 {
				returned = 1
			}
			if got, want := discarded.Load(), int64(len(c.starts))-returned; got != want {
				rt.Errorf("%v: %d results discarded; want every one not returned: %d of %d", s, got, want, len(c.starts))
			}
		})
	})
}

// refusing is a budget that refuses every call, as an adaptive throttle
// does when its target rejects most of them.
type refusing struct{ requests int }

func (r *refusing) Request() bool        { r.requests++; return false }
func (*refusing) AllowRetry() bool       { return false }
func (*refusing) Record(verdict.Verdict) {}
func (*refusing) Stats() budget.Stats    { return budget.Stats{} }

// A budget that refuses the call starts no copy; an open breaker is asked
// first, so its refusal never reaches the budget.
func TestHedgeBudgetRefusesCall(t *testing.T) {
	calls := 0
	op := func(context.Context) (int, error) { calls++; return 1, nil }
	b := &refusing{}
	if _, err := retry.Hedge(context.Background(), retry.Options{Budget: b}, hedge10ms, nil, nil, op); !errors.Is(err, budget.ErrThrottled) || calls != 0 || b.requests != 1 {
		t.Errorf("Hedge = %v after %d copies, %d requests; want ErrThrottled, no copy, one request", err, calls, b.requests)
	}
	br, _ := breaker.New(breaker.Config{Name: "hedge-open"})
	br.ForceOpen()
	b = &refusing{}
	if _, err := retry.Hedge(context.Background(), retry.Options{Budget: b, Breaker: br}, hedge10ms, nil, nil, op); !errors.Is(err, breaker.ErrOpen) || b.requests != 0 {
		t.Errorf("Hedge through an open breaker = %v, %d budget requests; want ErrOpen and none", err, b.requests)
	}
}
