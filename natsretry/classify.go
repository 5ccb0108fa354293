package natsretry

import (
	"context"
	"errors"

	"github.com/nats-io/nats.go"
	"github.com/recur-go/recur/verdict"
)

// Classify returns the verdict.Verdict of one attempt of a request
// marked WithSafe:
//
//	nil                                   Success
//	nats.ErrNoResponders                  Retryable  (retried when marked)
//	timeout (nats.ErrTimeout, the         Transient  (retried when marked WithSafe)
//	attempt's deadline)
//	the caller's cancellation             Neutral    (returned)
//	anything else                         Failure    (returned)
//
// A request marked WithRetry only has its timeouts judged Failure: they
// are returned, not retried. A request not marked is never retried.
// Code names the row.
func Classify(err error) verdict.Verdict {
	switch Code(err) {
	case CodeOK:
		return verdict.Success
	case CodeNoResponders:
		return verdict.Retryable
	case CodeTimeout:
		return verdict.Transient
	case CodeCanceled:
		return verdict.Neutral
	}
	return verdict.Failure
}

// classifyAsked is Classify for a request marked WithRetry alone.
func classifyAsked(err error) verdict.Verdict {
	if v := Classify(err); v != verdict.Transient {
		return v
	}
	return verdict.Failure
}

// The codes Code returns.
const (
	CodeOK           = "ok"            // no error
	CodeNoResponders = "no-responders" // nats.ErrNoResponders
	CodeTimeout      = "timeout"       // nats.ErrTimeout or a deadline
	CodeCanceled     = "canceled"      // context.Canceled
	CodeOther        = "other"         // anything else
)

// Code labels err for logs and metrics with one of the Code constants.
func Code(err error) string {
	switch {
	case err == nil:
		return CodeOK
	case errors.Is(err, nats.ErrNoResponders):
		return CodeNoResponders
	case errors.Is(err, nats.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return CodeTimeout
	case errors.Is(err, context.Canceled):
		return CodeCanceled
	}
	return CodeOther
}
