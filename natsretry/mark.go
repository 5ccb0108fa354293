package natsretry

import "context"

// idempotentKey is the context key of WithIdempotent's mark.
type idempotentKey struct{}

// WithIdempotent returns ctx marked idempotent: a request made with it may
// be handled twice, so it is sent again on the policy after an attempt
// timed out (Config.Options.AttemptTimeout), which the responder may have
// received and be slow to answer, and after a responder's reply with no
// data and a Status: 503 header. Mark only requests that may be handled
// twice, such as reads. A request that nobody received
// (nats.ErrNoResponders) is sent again whether it is marked or not.
func WithIdempotent(ctx context.Context) context.Context {
	return context.WithValue(ctx, idempotentKey{}, true)
}

// IsIdempotent reports whether ctx carries WithIdempotent's mark.
func IsIdempotent(ctx context.Context) bool {
	v, _ := ctx.Value(idempotentKey{}).(bool)
	return v
}
