package h3retry

import (
	"net/http"

	"github.com/quic-go/quic-go/http3"
	"github.com/recur-go/recur/httpretry"
)

// New returns an httpretry.Transport whose attempts go through t (nil
// means an http3.Transport of its own) by way of a Base, and whose Policy
// is the schedule that policy spells in the policy language
// (docs/language.md), such as "fulljitter(100ms, 2s) & times(3)". It
// returns httpretry.New's error if policy does not parse or is invalid.
// Set the other fields of the result (Breaker, Budget, Options, Hedge,
// Retry500, DeadlineHeader) before its first use, as for any
// httpretry.Transport.
func New(t *http3.Transport, policy string) (*httpretry.Transport, error) {
	return httpretry.New(&Base{Transport: t}, policy)
}

// NewClient returns an http.Client whose Transport is New(t, policy).
func NewClient(t *http3.Transport, policy string) (*http.Client, error) {
	tr, err := New(t, policy)
	if err != nil {
		return nil, err
	}
	return &http.Client{Transport: tr}, nil
}
