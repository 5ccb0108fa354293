package natsretry

import (
	"context"
	"errors"

	"github.com/nats-io/nats.go"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/verdict"
)

// Classify returns the verdict.Verdict of one attempt of a request
// marked WithIdempotent:
//
//	nil                                   Success
//	nats.ErrNoResponders                  Retryable  (retried, marked or not)
//	a responder's reply with no data and  Transient  (retried when marked)
//	a Status: 503 header (CodeUnavailable)
//	timeout (nats.ErrTimeout, the         Transient  (retried when marked)
//	attempt's deadline)
//	the caller's cancellation             Neutral    (returned)
//	anything else                         Failure    (returned)
//
// A request not marked has its timeouts judged Failure: they are
// returned, not retried, since the responder may have seen the request; a
// responder's status-503 reply is a reply to it, returned. Code names the
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

// judgeIdempotent is the runner's Judge for a request marked
// WithIdempotent: Classify's verdict, with Code as the reason label.
func judgeIdempotent(reply *nats.Msg, err error) retry.Judgement {
	if err == nil {
		if unavailable(reply) {
			return retry.Judgement{Verdict: verdict.Transient, Reason: CodeUnavailable}
		}
		return retry.Judgement{Verdict: verdict.Success}
	}
	code := Code(err)
	return retry.Judgement{Verdict: verdictOf(code), Reason: code}
}

// judgeUnmarked is judgeIdempotent for a request not marked: its timeouts
// are Failure, returned and not retried, and a responder's reply with
// status 503 is a reply, returned. No responders is still Retryable.
func judgeUnmarked(_ *nats.Msg, err error) retry.Judgement {
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
