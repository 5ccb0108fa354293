package h3retry_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/recur-go/recur/h3retry"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// TestClassifyError: quic-go's error types, as RoundTrip returns them
// and as httpretry may wrap them, each get the class docs/http3.md gives.
func TestClassifyError(t *testing.T) {
	rejectedCode := quic.StreamErrorCode(http3.ErrCodeRequestRejected)
	for _, tc := range []struct {
		name string
		err  error
		want httpretry.ErrorClass
	}{
		{"H3_REQUEST_REJECTED", &http3.Error{Remote: true, ErrorCode: http3.ErrCodeRequestRejected}, httpretry.Rejected},
		{"H3_REQUEST_REJECTED, wrapped", fmt.Errorf("http3: parsing frame failed: %w", &http3.Error{Remote: true, ErrorCode: http3.ErrCodeRequestRejected}), httpretry.Rejected},
		{"H3_REQUEST_REJECTED as a stream error", &quic.StreamError{StreamID: 4, ErrorCode: rejectedCode, Remote: true}, httpretry.Rejected},
		{"H3_REQUEST_REJECTED, local", &http3.Error{ErrorCode: http3.ErrCodeRequestRejected}, httpretry.ConnectionLost},
		{"H3_REQUEST_CANCELLED from the server", &http3.Error{Remote: true, ErrorCode: http3.ErrCodeRequestCanceled}, httpretry.ConnectionLost},
		{"H3_INTERNAL_ERROR close", &http3.Error{Remote: true, ErrorCode: http3.ErrCodeInternalError, ErrorMessage: "crashed"}, httpretry.ConnectionLost},
		{"stream reset, another code", &quic.StreamError{StreamID: 4, ErrorCode: 0x102, Remote: true}, httpretry.ConnectionLost},
		{"application close", &quic.ApplicationError{Remote: true, ErrorCode: 0x100}, httpretry.ConnectionLost},
		{"transport error", &quic.TransportError{Remote: true, ErrorCode: quic.ProtocolViolation}, httpretry.ConnectionLost},
		{"idle timeout", &quic.IdleTimeoutError{}, httpretry.ConnectionLost},
		{"stateless reset", &quic.StatelessResetError{}, httpretry.ConnectionLost},
		{"attempt timeout", fmt.Errorf("%w: %w", httpretry.ErrAttemptTimeout, context.Canceled), httpretry.Unclassified},
		{"something else", errors.New("http3: invalid response"), httpretry.Unclassified},
	} {
		if got := (&h3retry.Base{}).ClassifyError(tc.err); got != tc.want {
			t.Errorf("%s: %v; want %v", tc.name, got, tc.want)
		}
		if got, want := h3retry.Unprocessed(tc.err), tc.want == httpretry.Rejected; got != want {
			t.Errorf("%s: Unprocessed = %v; want %v", tc.name, got, want)
		}
	}
	if h3retry.Unprocessed(nil) {
		t.Error("Unprocessed(nil)")
	}
}

// TestNotSentOnlyWhenAsked: a request that never got as far as asking for
// a connection (an http URL, which http3.Transport refuses; a Transport
// that is closed) is not NotSent: no resend would help, and it is not
// retried. One whose dial failed is NotSent.
func TestNotSentOnlyWhenAsked(t *testing.T) {
	failing := &http3.Transport{Dial: func(context.Context, string, *tls.Config, *quic.Config) (*quic.Conn, error) {
		return nil, errors.New("no route")
	}}
	closed := &http3.Transport{}
	closed.Close()
	for _, tc := range []struct {
		name string
		t    *http3.Transport
		url  string
		want httpretry.ErrorClass
	}{
		{"http URL", &http3.Transport{}, "http://127.0.0.1:1/", httpretry.Unclassified},
		{"closed Transport", closed, "https://127.0.0.1:1/", httpretry.Unclassified},
		{"dial failed", failing, "https://127.0.0.1:1/", httpretry.NotSent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &h3retry.Base{Transport: tc.t}
			defer b.Close()
			_, err := b.RoundTrip(get(t, context.Background(), tc.url, "x"))
			if err == nil {
				t.Fatal("no error")
			}
			if got := b.ClassifyError(err); got != tc.want {
				t.Errorf("%v: %v; want %v", err, got, tc.want)
			}
			calls := 0
			tr := &httpretry.Transport{Base: b, Policy: schedule.Times{N: 3}, Budget: ownBudgets(t),
				Options: retry.Options{Observer: retry.ObserverFunc(func(_ context.Context, e retry.Event) {
					if e.Kind == retry.Attempted {
						calls++
					}
				})}}
			tr.RoundTrip(post(t, context.Background(), tc.url, "x", false))
			if want := map[bool]int{true: 3, false: 1}[tc.want == httpretry.NotSent]; calls != want {
				t.Errorf("%d attempts of a POST; want %d", calls, want)
			}
		})
	}
}

// TestTLSAndNoHost: a certificate the client does not trust and a host
// DNS does not know are judged as httpretry judges them over TCP: not
// retried, counted against the target, labeled tls and no-host.
func TestTLSAndNoHost(t *testing.T) {
	s := newServer(t, "", func(int64, http.ResponseWriter, *http.Request) {})
	for _, tc := range []struct {
		name, url, label string
		tls              *tls.Config
	}{
		{"untrusted certificate", s.url, "tls", &tls.Config{}},
		{"no such host", "https://no-such-host.invalid/", "no-host", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t)
			if tc.tls != nil {
				c.TLSClientConfig = tc.tls
			}
			tr, ev := retrying(t, c, 3)
			_, err := tr.RoundTrip(get(t, context.Background(), tc.url, "x"))
			if err == nil {
				t.Fatal("no error")
			}
			target := tc.url
			if tc.label == "no-host" {
				target = "https://no-such-host.invalid:443"
			}
			got := []any{ev.attemptLabels(), tr.Breaker.Get(target).Stats().Failures}
			if diff := cmp.Diff([]any{[]string{tc.label}, uint64(1)}, got); diff != "" {
				t.Errorf("labels, failures (-want +got):\n%s\nerr: %v", diff, err)
			}
		})
	}
	if s.received.Load() != 0 {
		t.Errorf("the server handled %d requests", s.received.Load())
	}
}
