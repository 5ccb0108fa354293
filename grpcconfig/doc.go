// Package grpcconfig reads the retry part of a gRPC service config and
// converts its retryPolicy to and from a recur schedule.
//
// gRPC clients are told how to retry by a JSON service config (gRFC A6):
//
//	{
//	  "methodConfig": [{
//	    "name": [{"service": "echo.Echo"}],
//	    "retryPolicy": {
//	      "maxAttempts": 4,
//	      "initialBackoff": "0.1s",
//	      "maxBackoff": "1s",
//	      "backoffMultiplier": 2,
//	      "retryableStatusCodes": ["UNAVAILABLE"]
//	    }
//	  }],
//	  "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}
//	}
//
// Parse reads such a config and checks it as gRPC does. A6's backoff is
// full jitter: the n-th retry waits a uniformly random time in
// [0, min(initialBackoff·backoffMultiplier^(n−1), maxBackoff)), and at
// most maxAttempts attempts are made, capped at 5. That is a schedule:
//
//	Intersect(Jittered(Exponential(100ms, 200%, 1s), 0%, 100%), Times(4))
//
// RetryPolicy.Schedule builds it and FromSchedule goes back. The two
// agree exactly when the multiplier is a whole percent (2, 1.5, 1.25 —
// Exponential grows by whole percents); another multiplier is rounded to
// the nearest percent and RetryPolicy.Notes says so. A multiplier below 1,
// which A6 allows and which shrinks the waits, has no equivalent. The
// ceilings are computed in integer nanoseconds: for an initialBackoff that
// is a whole number of milliseconds they are A6's exactly, to the
// nanosecond, for all the retries A6 allows.
//
// In 2024 A6 was revised (grpc/proposal#452): the n-th retry now waits
// the ceiling scaled by a random factor in [0.8, 1.2], which is what
// grpc-go v1.85 does. Jitter picks the formula: FullJitter, the zero
// value, is the one above; PlusMinus20 gives Jittered(…, 80%, 120%).
//
// retryThrottling becomes a budget.TokenBucketConfig. Lookup finds the
// method config that applies to a method, as gRPC does.
//
// This package uses encoding/json only: the grpc module stays out of the
// main module. Package github.com/recur-go/recur/grpcretry, a module of
// its own, puts the result to work in a client interceptor, and
// "schedcheck explain --from-grpc-config FILE" explains a config's
// policies.
package grpcconfig
