package breaker

import (
	"context"
	"errors"

	"github.com/recur-go/recur/verdict"
)

// Do makes one call of op through b and records judge's verdict on its
// result and error (with a nil judge, Success for a nil error and Failure
// otherwise; Neutral for an error while ctx is done, whatever judge says).
// It returns what op returned, unchanged; b's *OpenError, without calling
// op, if b refuses; ctx's error, recording nothing, if ctx is already done.
// If op or judge panics the call counts nothing (a probe records Neutral,
// giving its slot back) and the panic goes on. A retry.Judge adapts as
//
//	func(v T, err error) verdict.Verdict { return judge(v, err).Verdict }
//
// Do retries nothing (retry.Options.Breaker guards each attempt of a
// runner) and allocates nothing on success; docs/breaker.md gives its cost.
func Do[T any](ctx context.Context, b *Breaker, judge func(T, error) verdict.Verdict, op func(context.Context) (T, error)) (v T, err error) {
	switch {
	case b == nil:
		return v, errors.New("breaker: Do with a nil Breaker")
	case op == nil:
		return v, errors.New("breaker: Do with a nil operation")
	}
	if err := ctx.Err(); err != nil {
		return v, err
	}
	p, err := b.Allow()
	if err != nil {
		return v, err
	}
	rec := verdict.Neutral // what a panic records: nothing counts, a probe's slot is freed
	defer func() { b.Record(&p, rec) }()
	v, err = op(ctx)
	rec = verdict.Judge(ctx, judge, v, err)
	return v, err
}
