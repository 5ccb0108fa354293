package breaker_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

var errDown = errors.New("down")

// byStatus judges an HTTP-like status: a 503 counts against the target.
func byStatus(status int, err error) verdict.Verdict {
	if err != nil || status >= 500 {
		return verdict.Transient
	}
	return verdict.Success
}

func newDoBreaker(t *testing.T, clock clockcap.Clock) *breaker.Breaker {
	t.Helper()
	b, err := breaker.New(breaker.Config{Clock: clock, ConsecutiveFailures: 2,
		OpenFor: schedule.Exponential{Base: 10 * time.Second, FactorPct: 100, Cap: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDo(t *testing.T) {
	ctx := context.Background()
	clock := clockcap.Virtual(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	b := newDoBreaker(t, clock)
	calls := 0
	unavailable := func(context.Context) (int, error) { calls++; return 503, nil }

	// A (503, nil) is returned as is, and counts against the target.
	for range 2 {
		if v, err := breaker.Do(ctx, b, byStatus, unavailable); v != 503 || err != nil {
			t.Fatalf("Do = %d, %v; want 503, nil", v, err)
		}
	}
	// Now open: refused without a call, with an error matching ErrOpen.
	v, err := breaker.Do(ctx, b, byStatus, unavailable)
	var open *breaker.OpenError
	if v != 0 || !errors.Is(err, breaker.ErrOpen) || !errors.As(err, &open) || calls != 2 {
		t.Fatalf("open breaker: Do = %d, %v after %d calls; want 0, an *OpenError, 2 calls", v, err, calls)
	}
	if d, ok := open.Remaining(clock.Now()); !ok || d != 10*time.Second {
		t.Errorf("Remaining = %v, %v; want 10s", d, ok)
	}

	// The operation's own error comes back unchanged, never wrapped.
	clock.Advance(10 * time.Second)
	_, err = breaker.Do(ctx, b, nil, func(context.Context) (int, error) { return 0, errDown })
	if err != errDown {
		t.Errorf("err = %v, want the operation's own error", err)
	}
}

// TestDoPanicGivesTheProbeBack: a probe that panics is recorded as
// Neutral, so the half-open breaker admits the next probe.
func TestDoPanicGivesTheProbeBack(t *testing.T) {
	ctx := context.Background()
	clock := clockcap.Virtual(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	b := newDoBreaker(t, clock)
	fail := func(context.Context) (int, error) { return 0, errDown }
	_, _ = breaker.Do(ctx, b, nil, fail)
	_, _ = breaker.Do(ctx, b, nil, fail)
	clock.Advance(10 * time.Second)
	func() {
		defer func() { _ = recover() }()
		_, _ = breaker.Do(ctx, b, nil, func(context.Context) (int, error) { panic("op") })
	}()
	v, err := breaker.Do(ctx, b, nil, func(context.Context) (int, error) { return 1, nil })
	if v != 1 || err != nil {
		t.Fatalf("probe after a panicked probe: Do = %d, %v; want 1, nil", v, err)
	}
	if got := b.State(); got != breaker.Closed {
		t.Errorf("state = %v, want closed after the successful probe", got)
	}
}

// TestDoCallerCancelIsNeutral: failures while the caller's context is done
// count nothing.
func TestDoCallerCancelIsNeutral(t *testing.T) {
	b := newDoBreaker(t, clockcap.Virtual(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
	for range 5 {
		ctx, cancel := context.WithCancel(context.Background())
		_, _ = breaker.Do(ctx, b, nil, func(ctx context.Context) (int, error) { cancel(); return 0, ctx.Err() })
	}
	if diff := cmp.Diff(breaker.Closed, b.State()); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}
}

func TestDoBadInput(t *testing.T) {
	ctx := context.Background()
	if _, err := breaker.Do[int](ctx, nil, nil, func(context.Context) (int, error) { return 0, nil }); err == nil {
		t.Error("nil breaker: no error")
	}
	b := newDoBreaker(t, clockcap.Virtual(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
	if _, err := breaker.Do[int](ctx, b, nil, nil); err == nil {
		t.Error("nil op: no error")
	}
}

func TestDoAllocatesNothing(t *testing.T) {
	b, err := breaker.New(breaker.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	op := func(context.Context) (int, error) { return 200, nil }
	if n := testing.AllocsPerRun(1000, func() { _, _ = breaker.Do(ctx, b, byStatus, op) }); n != 0 {
		t.Errorf("Do on success: %v allocs, want 0", n)
	}
}

// BenchmarkOneCall compares Do with the Allow and Record it stands for,
// on a closed breaker with the real clock. Run interleaved:
//
//	for i in $(seq 10); do go test -run '^$' -bench OneCall -count 1 ./breaker; done | benchstat -col /form -
//
// Both forms call the same operation and judge through function values,
// as a caller's own functions would be.
func BenchmarkOneCall(b *testing.B) {
	ctx := context.Background()
	op, judge := benchOp, benchJudge
	b.Run("form=AllowRecord", func(b *testing.B) {
		br := mustNew(b, breaker.Config{})
		b.ReportAllocs()
		for b.Loop() {
			p, err := br.Allow()
			if err != nil {
				b.Fatal(err)
			}
			v, err := op(ctx)
			br.Record(&p, judge(v, err))
		}
	})
	b.Run("form=Do", func(b *testing.B) {
		br := mustNew(b, breaker.Config{})
		b.ReportAllocs()
		for b.Loop() {
			if _, err := breaker.Do(ctx, br, judge, op); err != nil {
				b.Fatal(err)
			}
		}
	})
}

var (
	benchOp    = func(context.Context) (int, error) { return 200, nil }
	benchJudge = byStatus
)

// TestDoPanicWhileClosedCountsNothing: outside a probe, a panicking call
// is counted neither way, as Neutral would be.
func TestDoPanicWhileClosedCountsNothing(t *testing.T) {
	b := newDoBreaker(t, clockcap.Virtual(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
	func() {
		defer func() { _ = recover() }()
		_, _ = breaker.Do(context.Background(), b, nil, func(context.Context) (int, error) { panic("op") })
	}()
	st := b.Stats()
	if st.Successes != 0 || st.Failures != 0 || st.State != breaker.Closed {
		t.Errorf("after a panic: %+v; want nothing counted, closed", st)
	}
}

// A context that is already done never reaches op, and counts nothing.
func TestDoDoneContext(t *testing.T) {
	b, err := breaker.New(breaker.Config{Name: "done"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := 0
	_, err = breaker.Do(ctx, b, nil, func(context.Context) (int, error) { calls++; return 1, nil })
	if calls != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("Do with a canceled context: %d calls, err %v; want none and context.Canceled", calls, err)
	}
}
