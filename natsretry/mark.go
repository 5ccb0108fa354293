package natsretry

import "context"

// markKey is the context key of the marks.
type markKey struct{}

// mark says what retries a request's caller asked for.
type mark uint8

const (
	askRetry mark = 1 + iota // retry on no-responders
	askSafe                  // and on an attempt's timeout
)

// WithRetry returns ctx marked for retries: a request made with it is
// sent again on the schedule when no subscriber listens on its subject
// (nats.ErrNoResponders), which the server reports before anyone has seen
// the message, so that a retry cannot make it run twice.
func WithRetry(ctx context.Context) context.Context {
	return context.WithValue(ctx, markKey{}, askRetry)
}

// WithSafe returns ctx marked like WithRetry and, in addition, safe to
// send again after an attempt timed out (Config.Retry.AttemptTimeout): the
// responder may have received it and be slow, so mark only requests that
// may be handled twice, such as reads.
func WithSafe(ctx context.Context) context.Context {
	return context.WithValue(ctx, markKey{}, askSafe)
}

// marked returns ctx's mark, 0 if none.
func marked(ctx context.Context) mark {
	m, _ := ctx.Value(markKey{}).(mark)
	return m
}
