package budget_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/verdict"
)

// fakeBudget refuses requests while refuse is set and keeps what it is told.
type fakeBudget struct {
	refuse   bool
	requests int
	recorded []verdict.Verdict
}

func (f *fakeBudget) Request() bool            { f.requests++; return !f.refuse }
func (f *fakeBudget) AllowRetry() bool         { panic("Do must not ask for a retry") }
func (f *fakeBudget) Record(v verdict.Verdict) { f.recorded = append(f.recorded, v) }
func (f *fakeBudget) Stats() budget.Stats      { return budget.Stats{} }

func byStatus(status int, err error) verdict.Verdict {
	if err != nil || status >= 500 {
		return verdict.Transient
	}
	return verdict.Success
}

var errDown = errors.New("down")

func TestDo(t *testing.T) {
	ctx := context.Background()
	f := &fakeBudget{}
	status := func(s int, err error) func(context.Context) (int, error) {
		return func(context.Context) (int, error) { return s, err }
	}
	if v, err := budget.Do(ctx, f, byStatus, status(503, nil)); v != 503 || err != nil {
		t.Errorf("Do = %d, %v; want 503, nil", v, err)
	}
	if _, err := budget.Do(ctx, f, nil, status(0, errDown)); err != errDown {
		t.Errorf("err = %v, want the operation's own error", err)
	}
	if _, err := budget.Do(ctx, f, nil, status(200, nil)); err != nil {
		t.Errorf("err = %v", err)
	}
	func() {
		defer func() { _ = recover() }()
		_, _ = budget.Do(ctx, f, nil, func(context.Context) (int, error) { panic("op") })
	}()
	cctx, cancel := context.WithCancel(ctx)
	_, _ = budget.Do(cctx, f, nil, func(ctx context.Context) (int, error) { cancel(); return 0, ctx.Err() })
	want := []verdict.Verdict{verdict.Transient, verdict.Failure, verdict.Success, verdict.Neutral, verdict.Neutral}
	if diff := cmp.Diff(want, f.recorded); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}

	f.refuse = true
	called := false
	_, err := budget.Do(ctx, f, nil, func(context.Context) (int, error) { called = true; return 0, nil })
	if !errors.Is(err, budget.ErrThrottled) || called {
		t.Errorf("refused: err = %v, called = %v; want ErrThrottled, not called", err, called)
	}
	if _, err := budget.Do[int](ctx, nil, nil, status(200, nil)); err == nil {
		t.Error("nil budget: no error")
	}
	if _, err := budget.Do[int](ctx, f, nil, nil); err == nil {
		t.Error("nil op: no error")
	}
}

func TestDoAllocatesNothing(t *testing.T) {
	b, err := budget.NewTokenBucket(budget.TokenBucketConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	op := func(context.Context) (int, error) { return 200, nil }
	if n := testing.AllocsPerRun(1000, func() { _, _ = budget.Do(ctx, b, byStatus, op) }); n != 0 {
		t.Errorf("Do on success: %v allocs, want 0", n)
	}
}

func BenchmarkDo(b *testing.B) {
	tb, err := budget.NewTokenBucket(budget.TokenBucketConfig{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	op := func(context.Context) (int, error) { return 200, nil }
	b.ReportAllocs()
	for b.Loop() {
		_, _ = budget.Do(ctx, tb, byStatus, op)
	}
}

// A context that is already done never reaches op, and counts nothing.
func TestDoDoneContext(t *testing.T) {
	b, _ := budget.NewTokenBucket(budget.TokenBucketConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := 0
	_, err := budget.Do(ctx, b, nil, func(context.Context) (int, error) { calls++; return 1, nil })
	if calls != 0 || !errors.Is(err, context.Canceled) || b.Stats().Requests != 0 {
		t.Errorf("Do with a canceled context: %d calls, err %v, %d requests; want none, context.Canceled, none", calls, err, b.Stats().Requests)
	}
}
