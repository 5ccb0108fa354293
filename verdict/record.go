package verdict

import "context"

// Recorded returns what a breaker or a budget records for an attempt
// judged v under ctx: v, or Neutral when v is not a Success and ctx is
// done, because an attempt the caller gave up on says nothing of the
// target. It is the one place recur writes that rule: breaker.Do,
// budget.Do and the retry runners all record through it.
func Recorded(ctx context.Context, v Verdict) Verdict {
	if v != Success && ctx.Err() != nil {
		return Neutral
	}
	return v
}

// Judge returns judge's verdict on an attempt that returned (v, err), as
// Recorded makes it under ctx. A nil judge calls a nil error a Success
// and any other a Failure.
func Judge[T any](ctx context.Context, judge func(T, error) Verdict, v T, err error) Verdict {
	var rec Verdict
	switch {
	case judge != nil:
		rec = judge(v, err)
	case err == nil:
		rec = Success
	default:
		rec = Failure
	}
	return Recorded(ctx, rec)
}
