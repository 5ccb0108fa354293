// Package natsretry retries NATS requests on a recur schedule, and only
// when the caller asks.
//
// A Requester sends a request once, as nats.Conn's RequestWithContext
// does, unless its context is marked. Marked with WithRetry, the request
// is sent again on the schedule while nobody subscribes to its subject
// (nats.ErrNoResponders), which the server reports before anyone has seen
// the message. Marked with WithSafe, it is also sent again after an
// attempt times out (Config.Retry.AttemptTimeout), which a responder
// may have seen: mark only requests that may be handled twice. The
// request's context bounds the whole schedule. There is no circuit
// breaker: a request goes to whoever subscribes, not to one server.
//
//	r, err := natsretry.New(nc, natsretry.Config{Policy: "fulljitter(50ms, 1s) & times(5)"})
//	...
//	reply, err := r.Request(natsretry.WithRetry(ctx), "orders.create", order)
package natsretry
