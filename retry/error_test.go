package retry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/retry"
)

func TestErrorMessage(t *testing.T) {
	shutdown := errors.New("shutting down")
	tests := []struct {
		e    retry.Error
		want string
	}{
		{retry.Error{Attempts: 5, Reason: retry.Exhausted, Err: errFlaky}, "retry: gave up after 5 attempts (schedule exhausted): flaky"},
		{retry.Error{Attempts: 1, Reason: retry.Deadline, Err: errFlaky}, "retry: gave up after 1 attempt (deadline exceeded): flaky"},
		{retry.Error{Attempts: 2, Reason: retry.Canceled, Err: errFlaky}, "retry: gave up after 2 attempts (canceled): flaky"},
		{retry.Error{Attempts: 2, Reason: retry.Canceled, Err: errFlaky, Cause: shutdown}, "retry: gave up after 2 attempts (canceled: shutting down): flaky"},
		{retry.Error{Attempts: 3, Reason: retry.Refused, Err: errFlaky}, "retry: gave up after 3 attempts (retry refused by pushback): flaky"},
		{retry.Error{Attempts: 3, Reason: 0}, "retry: gave up after 3 attempts (reason(0))"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

// TestErrorUnwrap: errors.Is reaches the last error, the context's error
// for Deadline and Canceled only, and the cause.
func TestErrorUnwrap(t *testing.T) {
	shutdown := errors.New("shutting down")
	targets := []error{errFlaky, context.DeadlineExceeded, context.Canceled, shutdown}
	tests := []struct {
		e    *retry.Error
		want []bool // errors.Is for each target
	}{
		{&retry.Error{Reason: retry.Exhausted, Err: errFlaky}, []bool{true, false, false, false}},
		{&retry.Error{Reason: retry.Refused, Err: errFlaky}, []bool{true, false, false, false}},
		{&retry.Error{Reason: retry.Deadline, Err: errFlaky}, []bool{true, true, false, false}},
		{&retry.Error{Reason: retry.Canceled, Err: errFlaky}, []bool{true, false, true, false}},
		{&retry.Error{Reason: retry.Canceled, Err: errFlaky, Cause: shutdown}, []bool{true, false, true, true}},
		{&retry.Error{Reason: retry.Exhausted}, []bool{false, false, false, false}},
	}
	for _, tt := range tests {
		var got []bool
		for _, target := range targets {
			got = append(got, errors.Is(tt.e, target))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%v: errors.Is for %v (-want +got):\n%s", tt.e, targets, diff)
		}
	}
}

// TestErrorAs: errors.As finds typed errors inside the last error.
func TestErrorAs(t *testing.T) {
	e := &retry.Error{Attempts: 2, Reason: retry.Exhausted, Err: pushErr{d: time.Second, ok: true}}
	var p pushErr
	if !errors.As(e, &p) || p.d != time.Second {
		t.Errorf("errors.As(%v, *pushErr) = %v, %v", e, p, errors.As(e, &p))
	}
}

func TestReasonString(t *testing.T) {
	got := []string{retry.Exhausted.String(), retry.Deadline.String(), retry.Canceled.String(), retry.Refused.String(), retry.Reason(0).String(), retry.Reason(9).String()}
	want := []string{"schedule exhausted", "deadline exceeded", "canceled", "retry refused by pushback", "reason(0)", "reason(9)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Reason.String (-want +got):\n%s", diff)
	}
}

func TestAfter(t *testing.T) {
	if err := retry.After(nil, time.Second); err != nil {
		t.Errorf("After(nil) = %v, want nil", err)
	}
	err := retry.After(errFlaky, 3*time.Second)
	if err.Error() != "flaky" || !errors.Is(err, errFlaky) || errors.Unwrap(err) != errFlaky {
		t.Errorf("After(errFlaky) = %q, unwrapping to %v", err, errors.Unwrap(err))
	}
	var p retry.Pushback
	if !errors.As(err, &p) {
		t.Fatalf("After's error is not a Pushback")
	}
	d, ok := p.RetryAfter()
	if d != 3*time.Second || !ok {
		t.Errorf("RetryAfter() = %v, %v; want 3s, true", d, ok)
	}
}
