package httpretry_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// judged is how a call with a failing Base went: attempts made, and what
// the breaker counted.
type judged struct {
	Attempts int64
	Failures uint64
}

// TestErrorTable runs GET and POST (no key) through a Base that always
// fails with a given error, on a policy of three attempts, and checks how
// many attempts were made and how many failures the breaker counted —
// the error rows of the decision table in docs/http.md.
func TestErrorTable(t *testing.T) {
	dial := func(err error) error {
		return &url.Error{Op: "Get", URL: "http://x.test", Err: &net.OpError{Op: "dial", Net: "tcp", Err: err}}
	}
	read := func(err error) error { return &net.OpError{Op: "read", Net: "tcp", Err: err} }
	type row struct {
		GET, POST judged
	}
	retried := judged{Attempts: 3, Failures: 3}        // Transient for both methods
	transient := row{GET: retried, POST: judged{1, 1}} // retried only if repeatable
	for _, tc := range []struct {
		name string
		err  error
		want row
	}{
		{"connection refused", dial(os.NewSyscallError("connect", syscall.ECONNREFUSED)), row{retried, retried}},
		{"dial timeout", dial(os.ErrDeadlineExceeded), row{retried, retried}},
		{"DNS temporary", dial(&net.DNSError{Err: "server misbehaving", Name: "x.test", IsTemporary: true}), row{retried, retried}},
		{"DNS no such host", dial(&net.DNSError{Err: "no such host", Name: "x.test", IsNotFound: true}), row{judged{1, 1}, judged{1, 1}}},
		{"proxy dial", &net.OpError{Op: "proxyconnect", Net: "tcp", Err: &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}}, row{retried, retried}},
		{"connection reset", read(os.NewSyscallError("read", syscall.ECONNRESET)), transient},
		{"broken pipe", fmt.Errorf("write: %w", syscall.EPIPE), transient},
		{"EOF", io.EOF, transient},
		{"unexpected EOF", fmt.Errorf("net/http: HTTP/1.x transport connection broken: %w", io.ErrUnexpectedEOF), transient},
		{"read timeout", read(os.ErrDeadlineExceeded), transient},
		{"server closed idle connection", errors.New("http: server closed idle connection"), transient},
		{"HTTP/2 connection lost", errors.New("http2: client connection lost"), transient},
		{"HTTP/2 GOAWAY at or above the stream", errors.New("http2: server sent GOAWAY and closed the connection; LastStreamID=1, ErrCode=NO_ERROR, debug=\"\""), transient},
		{"HTTP/2 stream past the GOAWAY's last stream ID", fmt.Errorf("wrapped: %w", errors.New("http2: Transport received Server's graceful shutdown GOAWAY")), row{judged{3, 0}, judged{3, 0}}},
		{"unknown authority", x509.UnknownAuthorityError{}, row{judged{1, 1}, judged{1, 1}}},
		{"certificate verification", &tls.CertificateVerificationError{Err: x509.HostnameError{Host: "x.test"}}, row{judged{1, 1}, judged{1, 1}}},
		{"not TLS", tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}, row{judged{1, 1}, judged{1, 1}}},
		{"TLS alert", &net.OpError{Op: "remote error", Err: tls.AlertError(40)}, row{judged{1, 1}, judged{1, 1}}},
		{"unknown error", errors.New("unsupported protocol scheme \"ftp\""), row{judged{1, 0}, judged{1, 0}}},
		{"unknown error in a *url.Error", &url.Error{Op: "Get", URL: "http://x.test", Err: errors.New("oauth2: token expired")}, row{judged{1, 0}, judged{1, 0}}},
		{"reset in a *url.Error", &url.Error{Op: "Get", URL: "http://x.test", Err: read(syscall.ECONNRESET)}, transient},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got row
			for _, v := range []variant{{name: "GET", method: "GET"}, {name: "POST", method: "POST", body: "rewind"}} {
				var calls int64
				base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
					calls++
					if r.Body != nil {
						r.Body.Close()
					}
					return nil, tc.err
				})
				reg := counter(t)
				tr := &httpretry.Transport{Budget: ownBudgets(), Base: base, Policy: schedule.Times{N: 3}, Breaker: reg}
				_, err := tr.RoundTrip(v.request(t, context.Background(), "http://x.test"))
				if !errors.Is(err, tc.err) {
					t.Errorf("%s: err = %v; want it to wrap %v", v.name, err, tc.err)
				}
				j := judged{calls, reg.Get("http://x.test:80").Stats().Failures}
				if v.method == "GET" {
					got.GET = j
				} else {
					got.POST = j
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestTLSCertificateNotRetried checks a real TLS server whose certificate
// the client does not trust: the handshake fails once, is not retried,
// and counts as a failure of the target.
func TestTLSCertificateNotRetried(t *testing.T) {
	tlsSrv := newTLSServer(t)
	reg := counter(t)
	tr := &httpretry.Transport{Budget: ownBudgets(), Base: newBase(t), Policy: schedule.Times{N: 3}, Breaker: reg}
	_, err := tr.RoundTrip(variant{method: "GET"}.request(t, context.Background(), tlsSrv.URL))
	var cv *tls.CertificateVerificationError
	if !errors.As(err, &cv) {
		t.Fatalf("err = %v; want a certificate verification error", err)
	}
	st := reg.Get(tlsSrv.URL).Stats()
	if diff := cmp.Diff(judged{1, 1}, judged{tlsSrv.opened.Load(), st.Failures}); diff != "" {
		t.Errorf("connections, failures (-want +got):\n%s", diff)
	}
}

// TestCallerCancelCountsNothing checks that an attempt the caller
// cancelled is recorded as nothing against the target.
func TestCallerCancelCountsNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		cancel()
		return nil, r.Context().Err()
	})
	reg := counter(t)
	tr := &httpretry.Transport{Budget: ownBudgets(), Base: base, Policy: schedule.Times{N: 3}, Breaker: reg}
	_, err := tr.RoundTrip(variant{method: "GET"}.request(t, ctx, "http://x.test"))
	if !errors.Is(err, context.Canceled) || reported(err) != 0 {
		t.Errorf("err = %v; want context.Canceled, unwrapped", err)
	}
	if st := reg.Get("http://x.test:80").Stats(); st.Failures != 0 || st.Successes != 0 {
		t.Errorf("breaker counted %+v; want nothing", st)
	}
}

// TestBadConfiguration checks that a bad policy or field is a clear error,
// from New or from every RoundTrip, and that the request body is closed.
func TestBadConfiguration(t *testing.T) {
	for _, tc := range []struct {
		name string
		tr   func() (*httpretry.Transport, error)
		want string
	}{
		{"unparsable policy", func() (*httpretry.Transport, error) { return httpretry.New(nil, "backof(1s, 2s)") }, `httpretry: 1:1: unknown name "backof"; did you mean "backoff"?`},
		{"invalid policy", func() (*httpretry.Transport, error) { return httpretry.New(nil, "times(0)") }, "httpretry: "},
		{"invalid Policy", func() (*httpretry.Transport, error) {
			return &httpretry.Transport{Policy: schedule.Times{N: 0}}, nil
		}, "httpretry: invalid Policy: "},
		{"invalid Hedge", func() (*httpretry.Transport, error) {
			return &httpretry.Transport{Hedge: schedule.Times{N: 0}}, nil
		}, "httpretry: invalid Hedge: "},
		{"negative AttemptTimeout", func() (*httpretry.Transport, error) {
			return &httpretry.Transport{Options: retry.Options{AttemptTimeout: -1}}, nil
		}, "httpretry: retry: negative Options.AttemptTimeout"},
		{"negative MaxPushback", func() (*httpretry.Transport, error) {
			return &httpretry.Transport{Options: retry.Options{MaxPushback: -1}}, nil
		}, "httpretry: retry: negative Options.MaxPushback"},
		{"Options.Target", func() (*httpretry.Transport, error) {
			return &httpretry.Transport{Options: retry.Options{Target: "http://x.test:80"}}, nil
		}, "httpretry: retry: Options.Target is set"},
		{"Options.Breaker", func() (*httpretry.Transport, error) {
			b, err := breaker.New(breaker.Config{})
			return &httpretry.Transport{Options: retry.Options{Breaker: b}}, err
		}, "httpretry: retry: Options.Breaker is set"},
		{"Options.Budget", func() (*httpretry.Transport, error) {
			return &httpretry.Transport{Options: retry.Options{Budget: ownBudgets().Get("x")}}, nil
		}, "httpretry: retry: Options.Budget is set"},
		{"Budget and Unthrottled", func() (*httpretry.Transport, error) {
			return &httpretry.Transport{Budget: ownBudgets(), Options: retry.Options{Unthrottled: true}}, nil
		}, "httpretry: both Budget and Options.Unthrottled set"},
		{"both at once", func() (*httpretry.Transport, error) {
			return &httpretry.Transport{Policy: schedule.Times{N: 0}, Options: retry.Options{AttemptTimeout: -1}}, nil
		}, "httpretry: invalid Policy: Times: n 0 is below 1\nretry: negative Options.AttemptTimeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := tc.tr()
			if err == nil {
				body := &closeCounter{Reader: strings.NewReader("x")}
				req, _ := http.NewRequest("PUT", "http://x.test", body)
				_, err = tr.RoundTrip(req)
				if body.closes != 1 {
					t.Errorf("request body closed %d times; want 1", body.closes)
				}
			}
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("err = %v; want one starting %q", err, tc.want)
			}
		})
	}
}

// TestNewClient checks the common case end to end through http.Client.
func TestNewClient(t *testing.T) {
	srv := newServer(t, func(n int64, w http.ResponseWriter, _ *http.Request) {
		if n == 1 {
			w.WriteHeader(http.StatusBadGateway)
		}
	})
	client, err := httpretry.NewClient("times(2)")
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	resp, err := client.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || srv.requests.Load() != 2 {
		t.Errorf("status %d after %d requests; want 200 after 2", resp.StatusCode, srv.requests.Load())
	}
}
