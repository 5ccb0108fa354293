package natsretry

import (
	"context"
	"errors"

	"github.com/nats-io/nats.go"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/verdict"
)

// Classify returns the verdict.Verdict of one attempt of a request
// marked WithSafe:
//
//	nil                                   Success
//	nats.ErrNoResponders                  Retryable  (retried when marked)
//	a responder's reply with no data and  Transient  (retried when marked WithSafe)
//	a Status: 503 header (CodeUnavailable)
//	timeout (nats.ErrTimeout, the         Transient  (retried when marked WithSafe)
//	attempt's deadline)
//	the caller's cancellation             Neutral    (returned)
//	anything else                         Failure    (returned)
//
// A request marked WithRetry only has its timeouts judged Failure: they
// are returned, not retried; a responder's status-503 reply is a reply to
// it, returned. A request not marked is never retried. Code names the
// row; Classify sees errors only, so the status-503 row is the judge's
// alone (see Requester.Request).
func Classify(err error) verdict.Verdict {
	return verdictOf(Code(err))
}

// verdictOf returns Classify's verdict on an error whose Code is code.
func verdictOf(code string) verdict.Verdict {
	switch code {
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

// judgeSafe is the runner's Judge for a request marked WithSafe:
// Classify's verdict, with Code as the reason label.
func judgeSafe(reply *nats.Msg, err error) retry.Judgement {
	if err == nil {
		if unavailable(reply) {
			return retry.Judgement{Verdict: verdict.Transient, Reason: CodeUnavailable}
		}
		return retry.Judgement{Verdict: verdict.Success}
	}
	code := Code(err)
	return retry.Judgement{Verdict: verdictOf(code), Reason: code}
}

// judgeAsked is judgeSafe for a request marked WithRetry alone: its
// timeouts are Failure, returned and not retried, and a responder's reply
// with status 503 is a reply, returned.
func judgeAsked(_ *nats.Msg, err error) retry.Judgement {
	if err == nil {
		return retry.Judgement{Verdict: verdict.Success}
	}
	code := Code(err)
	v := verdictOf(code)
	if v == verdict.Transient {
		v = verdict.Failure
	}
	return retry.Judgement{Verdict: v, Reason: code}
}

// The codes Code returns.
const (
	CodeOK           = "ok"            // no error
	CodeNoResponders = "no-responders" // nats.ErrNoResponders
	CodeUnavailable  = "unavailable"   // a responder's reply: no data, Status: 503
	CodeTimeout      = "timeout"       // nats.ErrTimeout or a deadline
	CodeCanceled     = "canceled"      // context.Canceled
	CodeOther        = "other"         // anything else
)

// Code labels err for logs and metrics with one of the Code constants.
// A *retry.Error that gave up on replies with status 503 (it wraps no
// error) is CodeUnavailable.
func Code(err error) string {
	var re *retry.Error
	switch {
	case err == nil:
		return CodeOK
	case errors.As(err, &re) && re.Err == nil && re.Label == CodeUnavailable:
		return CodeUnavailable
	case errors.Is(err, nats.ErrNoResponders):
		return CodeNoResponders
	case errors.Is(err, nats.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return CodeTimeout
	case errors.Is(err, context.Canceled):
		return CodeCanceled
	}
	return CodeOther
}
