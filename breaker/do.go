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
// Do retries nothing: retry.Options.Breaker guards each attempt of a
// runner. It costs what Allow and Record cost, allocating nothing on
// success.
func Do[T any](ctx context.Context, b *Breaker, judge func(T, error) verdict.Verdict, op func(context.Context) (T, error)) (T, error) {
	var v T
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
	if p.g.slot != 0 {
		return probe(ctx, b, &p, judge, op)
	}
	// A panic leaves the permit unrecorded, which counts nothing, as Neutral.
	v, err = op(ctx)
	b.Record(&p, verdict.Judge(ctx, judge, v, err))
	return v, err
}

// probe is Do for a probe, whose slot a panic gives back by recording Neutral.
func probe[T any](ctx context.Context, b *Breaker, p *Permit, judge func(T, error) verdict.Verdict, op func(context.Context) (T, error)) (v T, err error) {
	rec := verdict.Neutral
	defer func() { b.Record(p, rec) }()
	v, err = op(ctx)
	rec = verdict.Judge(ctx, judge, v, err)
	return v, err
}
