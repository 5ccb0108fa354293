package retry

import (
	"context"
	"time"

	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

// Judgement is a Judge's word on one attempt's whole outcome.
type Judgement struct {
	// Verdict decides: the runner tries again after Transient and
	// Retryable and returns the result otherwise; a breaker and a budget
	// record it.
	Verdict verdict.Verdict
	// RetryAfter, when not zero, is the server's pushback for this
	// outcome (an HTTP Retry-After read from a response): the runner waits
	// at least that long before the next attempt, within
	// Options.MaxPushback, and gives up at once with Reason Refused when
	// it is negative. When zero, a Pushback in the error counts instead.
	RetryAfter time.Duration
	// Reason is a short label from a vocabulary the caller defines, such
	// as "status_503" or "conn_refused", fit for a metric's label. The
	// runner passes it to the logger and the hooks, and keeps the last
	// one in Error.Label.
	Reason string
}

// Judge returns the judgement on an attempt that returned v and err. It
// sees every outcome, a nil error included, so that a (503 response, nil)
// can be retried. It must not keep v: the runner may discard it.
type Judge[T any] func(v T, err error) Judgement

// Do calls op until judge says not to retry, on schedule s, and returns
// the last attempt's result. It is RetryIf for outcomes that the error
// alone does not tell, such as an HTTP response whose status asks for a
// retry; everything RetryWhile documents holds, with judge's verdict in
// place of the predicate. A nil judge retries every error.
//
// A result the runner drops because it tries again is handed to discard,
// if not nil, exactly once, before the next attempt starts: close an HTTP
// response's body there. The runner never discards the result it returns,
// which belongs to the caller even with an error: when it gives up, it
// returns the last attempt's result with an *Error (whose Err is nil if
// the attempt's error was, and whose Label is the judgement's Reason);
// a call whose context ends while discard runs makes no further attempt
// and returns the zero T with an *Error of Reason Canceled or Deadline. If
// judge, a hook, the logger or the clock panics while the runner holds a
// result, the result is discarded before the panic goes on; a panic in op
// leaves nothing to discard.
//
// A call whose first attempt the judge calls a Success costs one call of
// judge more than RetryWhile and allocates nothing.
func Do[T any](ctx context.Context, o Options, s schedule.Schedule, judge Judge[T], discard func(T), op func(context.Context) (T, error)) (T, error) {
	return run(ctx, &o, s, rules[T]{judge: judge, discard: discard}, op)
}

// rules are how a runner judges an attempt's outcome — by one of worth,
// classify and judge — and what it does with a result it drops.
type rules[T any] struct {
	errRules
	judge   Judge[T]
	discard func(T)
}

// errRules are the rules that judge by the error alone: RetryWhile's worth
// or RetryIf's classify. They do not depend on T, so that judging an
// error is one small call whatever the result's type.
type errRules struct {
	worth    func(error) bool
	classify func(error) verdict.Verdict
}

// verdict returns the verdict on an attempt that failed with err, or
// succeeded if err is nil.
func (r *errRules) verdict(err error) verdict.Verdict {
	switch {
	case err == nil:
		return verdict.Success
	case r.classify != nil:
		return r.classify(err)
	case r.worth == nil || r.worth(err):
		return verdict.Transient
	}
	return verdict.Failure
}

// of returns the judgement on an attempt's outcome. Only a judge sees a
// nil error; to the others it is a Success.
func (rl *rules[T]) of(v T, err error) Judgement {
	if rl.judge != nil {
		return rl.judge(v, err)
	}
	return Judgement{Verdict: rl.verdict(err)}
}

// first is of for a result the runner does not hold yet (the first
// attempt's, or any attempt's inside guard): if the judge panics, v is
// discarded before the panic goes on.
func (rl *rules[T]) first(v T, err error) Judgement {
	if rl.judge == nil || rl.discard == nil {
		return rl.of(v, err)
	}
	done := false
	defer func() {
		if !done {
			rl.discard(v)
		}
	}()
	j := rl.judge(v, err)
	done = true
	return j
}
