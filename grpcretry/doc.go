// Package grpcretry retries unary gRPC calls on a recur schedule, with
// the semantics of gRFC A6 (gRPC's client retries), a circuit breaker per
// target and A6's retry throttling.
//
// It is a module of its own, github.com/recur-go/recur/grpcretry, so that
// google.golang.org/grpc never enters the main module's dependencies.
//
// # Use
//
//	policy, err := parse.Parse("fulljitter(100ms, 2s) & times(4)")
//	if err != nil {
//		return err // the policy did not parse
//	}
//	retrying, err := grpcretry.UnaryClientInterceptor(grpcretry.Config{
//		Policy: policy, // or a schedule.Schedule built in Go
//	})
//	if err != nil {
//		return err // the Config is inconsistent
//	}
//	conn, err := grpc.NewClient(target,
//		grpc.WithTransportCredentials(creds),
//		grpc.WithDisableRetry(), // recur retries; grpc-go must not retry as well
//		grpc.WithChainUnaryInterceptor(retrying))
//
// Every unary call through conn is then tried up to 4 times while it
// fails with UNAVAILABLE, waiting a random 0–100 ms, 0–200 ms, 0–400 ms
// between attempts. Config.Codes widens the retried codes; a
// Config.ServiceConfig (see package grpcconfig) sets the policy per
// method, from the same JSON that grpc.WithDefaultServiceConfig takes.
// A Config with no policy retries UNAVAILABLE on retry.DefaultSchedule.
//
// # What a call does
//
//   - A call whose context is already done is not sent: it returns the
//     context's error at once.
//   - An open circuit breaker (Config.Breaker, one per target) fails the
//     call at once with status UNAVAILABLE "circuit open", without
//     touching the network; errors.Is(err, breaker.ErrOpen) holds.
//   - Each attempt after the first carries the metadata
//     grpc-previous-rpc-attempts: 1, 2, …, as A6 says.
//   - Each attempt runs under the call's context, so grpc-go sends the
//     time left before the call's deadline as grpc-timeout: the server
//     never works for a client that has given up. Config.Options'
//     AttemptTimeout bounds each attempt inside that.
//   - The call's deadline bounds all attempts together: a retry whose wait
//     would end past it is not made.
//   - A trailer grpc-retry-pushback-ms makes the next wait at least that
//     many milliseconds, cut to Config.Options.MaxPushback
//     (DefaultMaxPushback, 30s, when zero); a negative or unreadable
//     value, or several values, stop the retries.
//   - The target's retry budget (Config.Budget; by default the target's
//     shared A6 token bucket, budget.Shared, which every call to that
//     target in the process draws on) allows a retry only while the
//     target is mostly answering: a failing target sees about 10% extra
//     load, never a storm. Config.Options.Unthrottled turns it off.
//
// # What counts as a failure
//
// A breaker protects against a down or drowning target, not against
// bad requests: UNAVAILABLE and DEADLINE_EXCEEDED (an attempt
// timeout, or a server too slow for its own deadline) count against the
// target in its breaker; every other code is the application's answer and
// counts nothing — retried (verdict Retryable) if Config.Codes lists it,
// returned (Neutral) if not. An attempt cut short by AttemptTimeout is
// always retried: that is what the timeout is for. An attempt that the
// caller's own deadline or cancellation ended counts nothing and is not
// retried.
//
// # Observing
//
// Config.Options.Observer receives a retry.Event for every attempt,
// retry, give-up and recovery, with the ClientConn's Target() as Target,
// the attempt's reason label (its status code, such as "unavailable") as
// Label, and the call's context; retry.LogObserver writes them to a
// log/slog logger, and retry.Observers combines several observers.
//
// # Errors
//
// A call that was retried and still failed returns a *retry.Error that
// wraps the last attempt's status error, says how many attempts were made
// and why the retries stopped; status.Code(err) and status.FromError see
// the last status through it. A call that was not retried returns the
// attempt's status error unchanged.
//
// # Not covered
//
// Streaming calls are not retried: there is no stream interceptor, and a
// stream's messages cannot be replayed safely in general. Hedging, A6's
// other half, is Config.Hedge or a service config's hedgingPolicy.
//
// grpc-go has retries of its own, driven by a service config's
// retryPolicy. Dial with grpc.WithDisableRetry, or give grpc-go no
// retryPolicy, or a failing call is retried by both and the attempts
// multiply. WithDisableRetry leaves grpc-go's transparent retry on: a
// call the server provably never processed (a refused stream, one past a
// GOAWAY) is still sent again once, which is always safe.
//
// A6 waits exactly the pushback and restarts the backoff after it; recur
// waits at least the pushback and the schedule goes on. A6's backoff as
// revised in 2024 (a ±20% jitter, what grpc-go v1.85 does) is
// grpcconfig.PlusMinus20; the default is the full jitter A6 first
// published, Brooker's "Full Jitter".
package grpcretry
