package repeat_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/repeat"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

const sec = time.Second

var (
	epoch     = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	errBroken = errors.New("broken")
	every30s  = schedule.Schedule(schedule.Spaced{Every: 30 * sec})
)

// future returns a virtual start an hour ahead of the real clock, so that a
// context deadline relative to it is only tripped by the virtual clock.
func future() time.Time { return time.Now().Add(time.Hour) }

// poller is an operation on a virtual clock: run i (from 1) takes took and
// fails when i == failAt. It records when each run started.
type poller struct {
	clock  *clockcap.VirtualClock
	took   time.Duration
	failAt int
	starts []time.Duration
}

func (p *poller) op(context.Context) error {
	p.starts = append(p.starts, p.clock.Elapsed())
	p.clock.Advance(p.took)
	if len(p.starts) == p.failAt {
		return errBroken
	}
	return nil
}

// TestSeedPollEveryThirtySeconds is "every thirty seconds until
// something breaks": the count of successful runs comes back, with the
// error that broke it, and the polls keep to the 30-second grid however
// long each takes.
func TestSeedPollEveryThirtySeconds(t *testing.T) {
	tests := []struct {
		took       time.Duration
		wantStarts []time.Duration
		wantSleeps []time.Duration
	}{
		{0, []time.Duration{0, 30 * sec, 60 * sec, 90 * sec, 120 * sec}, []time.Duration{30 * sec, 30 * sec, 30 * sec, 30 * sec}},
		{2 * sec, []time.Duration{0, 30 * sec, 60 * sec, 90 * sec, 120 * sec}, []time.Duration{28 * sec, 28 * sec, 28 * sec, 28 * sec}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint("polls taking ", tt.took), func(t *testing.T) {
			clock := clockcap.Virtual(epoch)
			p := &poller{clock: clock, took: tt.took, failAt: 5}
			n, err := repeat.Repeat(context.Background(), repeat.Options{Caps: retry.Caps{Clock: clock, Random: randcap.Seeded(1)}}, every30s, p.op)
			if n != 4 || err != errBroken {
				t.Errorf("Repeat = %d, %v; want 4, %v", n, err, errBroken)
			}
			if diff := cmp.Diff(tt.wantStarts, p.starts); diff != "" {
				t.Errorf("poll starts (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSleeps, clock.Sleeps()); diff != "" {
				t.Errorf("sleeps (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRepeat(t *testing.T) {
	tests := []struct {
		name       string
		sched      schedule.Schedule
		failAt     int           // the run that fails; 0: none
		took       time.Duration // each run's duration
		deadline   time.Duration // from the virtual start; 0: none
		wantRuns   int
		wantErr    error // compared with errors.Is; nil: must be nil
		wantSleeps []time.Duration
	}{
		{name: "Times(3) runs three times", sched: schedule.Times{N: 3}, wantRuns: 3},
		{name: "Times(1) runs once", sched: schedule.Times{N: 1}, wantRuns: 1},
		{name: "the first run fails", sched: every30s, failAt: 1, wantRuns: 0, wantErr: errBroken},
		{name: "fails after two", sched: schedule.Times{N: 5}, failAt: 3, wantRuns: 2, wantErr: errBroken},
		{name: "UpTo five minutes of polling", sched: schedule.UpTo{Inner: every30s, Budget: 5 * time.Minute},
			wantRuns: 11, wantSleeps: repeated(10, 30*sec)},
		{name: "slow runs keep to the grid", sched: schedule.UpTo{Inner: every30s, Budget: 5 * time.Minute}, took: 20 * sec,
			wantRuns: 11, wantSleeps: repeated(10, 10*sec)},
		{name: "Exponential gaps", sched: schedule.Intersect{A: schedule.Exponential{Base: sec, FactorPct: 200, Cap: time.Minute}, B: schedule.Times{N: 4}},
			wantRuns: 4, wantSleeps: []time.Duration{sec, 2 * sec, 4 * sec}},
		{name: "the deadline stops the run that would start past it", sched: every30s, deadline: 100 * sec,
			wantRuns: 4, wantErr: repeat.ErrDeadline, wantSleeps: repeated(3, 30*sec)},
		{name: "a run that would start at the deadline is not made", sched: every30s, deadline: 90 * sec,
			wantRuns: 3, wantErr: context.DeadlineExceeded, wantSleeps: repeated(2, 30*sec)},
		{name: "a run past the deadline ends the loop", sched: schedule.Forever{}, deadline: 10 * sec, took: 4 * sec,
			wantRuns: 3, wantErr: repeat.ErrDeadline},
		{name: "the schedule can end before the deadline", sched: schedule.Times{N: 2}, deadline: time.Minute, wantRuns: 2},
		{name: "a failure is returned even near the deadline", sched: every30s, deadline: 100 * sec, failAt: 2,
			wantRuns: 1, wantErr: errBroken, wantSleeps: repeated(1, 30*sec)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start, ctx := epoch, context.Background()
			if tt.deadline > 0 {
				start = future()
				var cancel context.CancelFunc
				ctx, cancel = context.WithDeadline(ctx, start.Add(tt.deadline))
				defer cancel()
			}
			clock := clockcap.Virtual(start)
			p := &poller{clock: clock, took: tt.took, failAt: tt.failAt}
			n, err := repeat.Repeat(ctx, repeat.Options{Caps: retry.Caps{Clock: clock}}, tt.sched, p.op)
			if n != tt.wantRuns {
				t.Errorf("%d runs, want %d", n, tt.wantRuns)
			}
			if wantCalls := tt.wantRuns + btoi(tt.failAt > 0); len(p.starts) != wantCalls {
				t.Errorf("op called %d times, want %d", len(p.starts), wantCalls)
			}
			if tt.wantErr == nil && err != nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.wantSleeps, clock.Sleeps()); diff != "" {
				t.Errorf("sleeps (-want +got):\n%s", diff)
			}
		})
	}
}

func repeated(n int, d time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d
	}
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestObserver: the Observer sees the runs so far and each wait, and is not
// called after the last run.
func TestObserver(t *testing.T) {
	type call struct {
		Runs  int
		Delay time.Duration
	}
	var got []call
	clock := clockcap.Virtual(epoch)
	o := repeat.Options{Caps: retry.Caps{Clock: clock}, Observer: afterRun(func(n int, d time.Duration) { got = append(got, call{n, d}) })}
	s := schedule.Intersect{A: schedule.Fibonacci{Base: sec}, B: schedule.Times{N: 4}}
	if n, err := repeat.Repeat(context.Background(), o, s, func(context.Context) error { return nil }); n != 4 || err != nil {
		t.Fatalf("Repeat = %d, %v", n, err)
	}
	want := []call{{1, sec}, {2, sec}, {3, 2 * sec}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Retrying events (-want +got):\n%s", diff)
	}
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	o := repeat.Options{Caps: retry.Caps{Clock: clockcap.Virtual(epoch)}}
	t.Run("nil op", func(t *testing.T) {
		n, err := repeat.Repeat(ctx, o, every30s, nil)
		if n != 0 || err == nil || err.Error() != "repeat: nil operation" {
			t.Errorf("Repeat = %d, %v; want 0, repeat: nil operation", n, err)
		}
	})
	t.Run("negative RunTimeout", func(t *testing.T) {
		calls := 0
		n, err := repeat.Repeat(ctx, repeat.Options{RunTimeout: -time.Second}, every30s, func(context.Context) error { calls++; return nil })
		if n != 0 || calls != 0 || err == nil || err.Error() != "repeat: negative Options.RunTimeout" {
			t.Errorf("Repeat = %d, %v after %d calls", n, err, calls)
		}
	})
	for _, tt := range []struct {
		name string
		o    repeat.Options
		s    schedule.Schedule
		want string
		path string // the *schedule.Error's Path, if the schedule is at fault
	}{
		{"invalid schedule", o, schedule.Union{A: schedule.Spaced{}, B: schedule.Times{N: 2}},
			"repeat: invalid schedule: Union.A.Spaced: every 0s is not positive", "Union.A.Spaced"},
		{"zero Times", o, schedule.Times{}, "repeat: invalid schedule: Times: n 0 is below 1", "Times"},
		{"nil schedule", o, nil, "repeat: invalid schedule: missing schedule", ""},
	} {
		for _, fails := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/op fails %v", tt.name, fails), func(t *testing.T) {
				calls := 0
				n, err := repeat.Repeat(ctx, tt.o, tt.s, func(context.Context) error {
					if calls++; fails {
						return errBroken
					}
					return nil
				})
				if n != 0 || calls != 0 || err == nil || err.Error() != tt.want {
					t.Fatalf("Repeat = %d, %v after %d calls; want 0, %s after none", n, err, calls, tt.want)
				}
				var se *schedule.Error
				if isSched := tt.path != "" || tt.s == nil; errors.As(err, &se) != isSched {
					t.Errorf("errors.As(%v, *schedule.Error) = %v; want %v", err, !isSched, isSched)
				} else if isSched && se.Path != tt.path {
					t.Errorf("schedule.Error.Path = %q; want %q", se.Path, tt.path)
				}
			})
		}
	}
}

func TestPanicPropagates(t *testing.T) {
	runs := 0
	defer func() {
		if r := recover(); r != "boom" || runs != 2 {
			t.Errorf("recovered %v after %d runs, want boom after 2", r, runs)
		}
	}()
	_, _ = repeat.Repeat(context.Background(), repeat.Options{Caps: retry.Caps{Clock: clockcap.Virtual(epoch)}}, every30s, func(context.Context) error {
		if runs++; runs == 2 {
			panic("boom")
		}
		return nil
	})
	t.Error("Repeat returned instead of panicking")
}

// TestCancelDuringWait: cancelling while Repeat sleeps on a manual clock
// returns the context's error at once, with the runs so far.
func TestCancelDuringWait(t *testing.T) {
	clock := clockcap.Manual(epoch)
	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		n   int
		err error
	}
	done := make(chan result)
	go func() {
		n, err := repeat.Repeat(ctx, repeat.Options{Caps: retry.Caps{Clock: clock}}, every30s, func(context.Context) error { return nil })
		done <- result{n, err}
	}()
	for range 2 { // let two runs happen
		if err := clock.WaitSleepers(context.Background(), 1); err != nil {
			t.Fatal(err)
		}
		clock.Advance(30 * sec)
	}
	if err := clock.WaitSleepers(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if r := <-done; r.n != 3 || r.err != context.Canceled {
		t.Errorf("Repeat = %d, %v; want 3, context.Canceled", r.n, r.err)
	}
}

// TestCancelDuringWaitRealClock: the same with the real clock and an
// hourly schedule (a hang would time the test out).
func TestCancelDuringWaitRealClock(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	waiting := make(chan struct{})
	o := repeat.Options{Observer: afterRun(func(int, time.Duration) { close(waiting) })}
	go func() {
		<-waiting
		cancel()
	}()
	n, err := repeat.Repeat(ctx, o, schedule.Spaced{Every: time.Hour}, func(context.Context) error { return nil })
	if n != 1 || err != context.Canceled {
		t.Errorf("Repeat = %d, %v; want 1, context.Canceled", n, err)
	}
}

// A context that is already done never reaches op.
func TestDoneContextNeverReachesOp(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := 0
	n, err := repeat.Repeat(ctx, repeat.Options{}, schedule.Times{N: 3}, func(context.Context) error { calls++; return nil })
	if calls != 0 || n != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("Repeat with a canceled context: %d calls, (%d, %v); want no call and (0, context.Canceled)", calls, n, err)
	}
}

// afterRun returns an Observer that calls f with the runs so far and the
// wait of every Retrying event.
func afterRun(f func(runs int, wait time.Duration)) retry.Observer {
	return retry.ObserverFunc(func(_ context.Context, e retry.Event) {
		if e.Kind == retry.Retrying {
			f(e.Attempt, e.Delay)
		}
	})
}
