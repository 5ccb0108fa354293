package budget

import (
	"context"
	"errors"

	"github.com/recur-go/recur/verdict"
)

var (
	errNilBudget = errors.New("budget: Do with a nil Budget")
	errNilOp     = errors.New("budget: Do with a nil operation")
)

// Do makes one request of op under b: if ctx is already done, op is not
// called and Do returns ctx's error, counting nothing; if b.Request
// refuses it, op is not called and Do returns ErrThrottled; otherwise it returns what op
// returned, unchanged and unwrapped, after recording judge's verdict on it
// with b.Record. A nil judge calls a nil error a Success and any other a
// Failure. An error while ctx is done is recorded as Neutral whatever
// judge says: the caller gave up. If op or judge panics, Neutral is
// recorded and the panic goes on.
//
// Do makes no retry and so never asks AllowRetry: it is for a call that
// is not retried here but whose load the budget should see, such as a
// request a server forwards. It allocates nothing beyond what b does.
func Do[T any](ctx context.Context, b Budget, judge func(T, error) verdict.Verdict, op func(context.Context) (T, error)) (T, error) {
	var v T
	if b == nil || op == nil {
		if b == nil {
			return v, errNilBudget
		}
		return v, errNilOp
	}
	if err := ctx.Err(); err != nil {
		return v, err // a done context never reaches op, nor the budget
	}
	if !b.Request() {
		return v, ErrThrottled
	}
	rec := verdict.Neutral // what a panic leaves recorded
	defer func() { b.Record(rec) }()
	v, err := op(ctx)
	rec = verdict.Judge(ctx, judge, v, err)
	return v, err
}
