// Package natsretry retries NATS requests on a recur schedule: every
// request that nobody received, and the ones the caller marks idempotent
// after a timeout too.
//
// A Requester sends a request as nats.Conn's RequestWithContext does, and
// sends it again on the Config's Policy while nobody subscribes to its
// subject (nats.ErrNoResponders), which the server reports before anyone
// has seen the message: nothing ran, so a retry cannot make it run twice,
// and every request is retried so, marked or not. Marked with
// WithIdempotent, a request is also sent again after an attempt times out
// (Config.Options.AttemptTimeout), which a responder may have seen: mark
// only requests that may be handled twice. A request not marked that
// times out is sent once. The request's context bounds the whole policy.
// There is no circuit breaker: a request goes to whoever subscribes, not
// to one server.
//
//	r, err := natsretry.New(nc, natsretry.Config{Policy: parse.MustParse("fulljitter(50ms, 1s) & times(5)")})
//	...
//	reply, err := r.Request(ctx, "orders.create", order)          // again while nobody listens
//	price, err := r.Request(natsretry.WithIdempotent(ctx), "prices.get", sku) // and after a timeout
//
// Config has the shape every recur adapter shares, Policy, Budget and
// Options (a retry.Options), described once in docs/adapters.md.
package natsretry
