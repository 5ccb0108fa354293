package neterr_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/neterr"
)

type timeoutOnly struct{}

func (timeoutOnly) Error() string { return "timed out" }
func (timeoutOnly) Timeout() bool { return true }

func TestKinds(t *testing.T) {
	type kinds struct{ TLS, NoHost, Timeout bool }
	dial := func(err error) error { return &net.OpError{Op: "dial", Net: "tcp", Err: err} }
	for _, tc := range []struct {
		name string
		err  error
		want kinds
	}{
		{"unknown authority", fmt.Errorf("connect: %w", &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}), kinds{TLS: true}},
		{"hostname", x509.HostnameError{Host: "db"}, kinds{TLS: true}},
		{"not TLS", tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}, kinds{TLS: true}},
		{"alert", &net.OpError{Op: "remote error", Err: errors.New("tls: bad certificate")}, kinds{TLS: true}},
		{"no such host", dial(&net.DNSError{Err: "no such host", Name: "db.example", IsNotFound: true}), kinds{NoHost: true}},
		{"temporary DNS", dial(&net.DNSError{Err: "server misbehaving", Name: "db.example", IsTemporary: true}), kinds{}},
		{"i/o timeout", &net.OpError{Op: "read", Err: os.ErrDeadlineExceeded}, kinds{Timeout: true}},
		{"Timeout method only", fmt.Errorf("proxy: %w", timeoutOnly{}), kinds{Timeout: true}},
		{"deadline", context.DeadlineExceeded, kinds{Timeout: true}},
		{"refused", dial(&os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}), kinds{}},
		{"nil", nil, kinds{}},
	} {
		got := kinds{neterr.IsTLS(tc.err), neterr.IsNoHost(tc.err), neterr.IsTimeout(tc.err)}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

func ExampleIsNoHost() {
	_, err := net.Dial("tcp", "no-such-host.invalid:80")
	fmt.Println(neterr.IsNoHost(err))
	// Output: true
}

// The adapters classify on the request path: asking costs no allocation.
func TestNoAllocs(t *testing.T) {
	err := fmt.Errorf("read: %w", &net.OpError{Op: "read", Err: os.ErrDeadlineExceeded})
	if n := testing.AllocsPerRun(100, func() { _ = neterr.IsTLS(err) || neterr.IsNoHost(err) || neterr.IsTimeout(err) }); n != 0 {
		t.Errorf("%v allocations; want none", n)
	}
}
