package retry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
	"pgregory.net/rapid"
)

// What one scripted attempt does.
const (
	outOK         = iota // 200
	out503               // (503, nil): retried
	outErr               // (503, error): retried
	outFatal             // (400, nil): returned
	outOpPanic           // op panics, no response
	outJudgePanic        // the judge panics on this response
	outCancel            // op cancels the call's context, returns a 503
	outKinds
)

type panicked struct{}

// TestPropDiscardOnce: over random outcomes, cancellation points and panics
// (in op, the judge and the Observer), every response the runner made is either
// returned, open, or discarded exactly once; none is both, none is lost.
func TestPropDiscardOnce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		script := rapid.SliceOfN(rapid.IntRange(0, outKinds-1), 1, 8).Draw(t, "script")
		hookPanicAt := rapid.IntRange(0, 8).Draw(t, "hookPanicAt") // 0: never
		timeout := rapid.Bool().Draw(t, "attemptTimeout")
		guarded := rapid.Bool().Draw(t, "breaker")

		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var made []*response
		judge := func(r *response, err error) retry.Judgement {
			if r != nil && r.status == -1 {
				panic(panicked{})
			}
			if r != nil && r.status == 400 {
				return retry.Judgement{Verdict: verdict.Failure, Reason: "status_400"}
			}
			if err != nil || r.status == 503 {
				return retry.Judgement{Verdict: verdict.Transient, Reason: "status_503"}
			}
			return retry.Judgement{Verdict: verdict.Success}
		}
		op := func(ctx context.Context) (*response, error) {
			i := retry.AttemptOf(ctx).Number - 1
			if i >= len(script) {
				r := &response{status: 200}
				made = append(made, r)
				return r, nil
			}
			var r *response
			var err error
			switch script[i] {
			case outOK:
				r = &response{status: 200}
			case out503:
				r = &response{status: 503}
			case outErr:
				r, err = &response{status: 503}, errFlaky
			case outFatal:
				r = &response{status: 400}
			case outOpPanic:
				panic(panicked{})
			case outJudgePanic:
				r = &response{status: -1}
			case outCancel:
				cancel()
				r = &response{status: 503}
			}
			made = append(made, r)
			return r, err
		}
		o := retry.Options{
			Caps: retry.Caps{Clock: clockcap.Virtual(epoch), Random: randcap.Seeded(1)},
			Observer: on(retry.Retrying, func(e retry.Event) {
				if e.Attempt == hookPanicAt {
					panic(panicked{})
				}
			}),
		}
		if timeout {
			o.AttemptTimeout = time.Hour
		}
		if guarded {
			b, err := breaker.New(breaker.Config{Clock: o.Clock, ConsecutiveFailures: 1000})
			if err != nil {
				t.Fatal(err)
			}
			o.Breaker = b
		}
		var got *response
		var gotErr error
		didPanic := func() (p bool) {
			defer func() {
				if r := recover(); r != nil {
					if _, ok := r.(panicked); !ok {
						panic(r)
					}
					p = true
				}
			}()
			got, gotErr = retry.Do(ctx, o, schedule.Times{N: 20}, judge, closeBody, op)
			return false
		}()
		for i, r := range made {
			want := 1
			if !didPanic && r == got {
				want = 0
			}
			if r.closed != want {
				t.Fatalf("response %d of %d (status %d) closed %d times, want %d (panic %v, err %v)",
					i+1, len(made), r.status, r.closed, want, didPanic, gotErr)
			}
		}
		if !didPanic && len(made) > 0 && got != made[len(made)-1] {
			t.Fatalf("returned %p, want the last response %p", got, made[len(made)-1])
		}
		if !didPanic && got == nil && gotErr == nil {
			t.Fatal("nil response with a nil error")
		}
		if errors.Is(gotErr, context.Canceled) && got == nil {
			t.Fatal("canceled call returned no response")
		}
	})
}
