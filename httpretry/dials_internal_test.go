//lint:file-ignore SA1019 a Base may still set the deprecated Dial and DialTLS: their dials are counted too

package httpretry

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDialHooksBounded checks every way an *http.Transport may dial —
// DialContext, the deprecated Dial, DialTLSContext, DialTLS, or none —
// on its copy: each attempt's dials past the fourth fail with
// ErrDialLimit; dials outside an attempt are not counted; the caller's
// Transport is left as it was.
func TestDialHooksBounded(t *testing.T) {
	refused := errors.New("refused")
	var calls int
	dial := func(string, string) (net.Conn, error) { calls++; return nil, refused }
	dialCtx := func(_ context.Context, n, a string) (net.Conn, error) { return dial(n, a) }
	for _, tc := range []struct {
		name string
		t    *http.Transport
		tls  bool // the copy dials through DialTLSContext
	}{
		{"DialContext", &http.Transport{DialContext: dialCtx}, false},
		{"Dial", &http.Transport{Dial: dial}, false},
		{"DialTLSContext", &http.Transport{DialTLSContext: dialCtx}, true},
		{"DialTLS", &http.Transport{DialTLS: dial}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls = 0
			hadDial, hadDialContext := tc.t.Dial != nil, tc.t.DialContext != nil
			c := newDialBound(tc.t).t
			d := c.DialContext
			if tc.tls {
				d = c.DialTLSContext
			}
			ctx := &attemptDials{orig: new(http.Request)} // under context.Background()
			var got []string
			for range 6 {
				_, err := d(ctx, "tcp", "127.0.0.1:1")
				got = append(got, errText(err))
			}
			d(context.Background(), "tcp", "127.0.0.1:1") // outside an attempt
			limit := "httpretry: one attempt to 127.0.0.1:1 has opened 4 connections without an answer; not dialing again (see golang/go#52459)"
			want := []string{"refused", "refused", "refused", "refused", limit, limit}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("dials (-want +got):\n%s", diff)
			}
			if calls != 5 {
				t.Errorf("%d dials reached the hook; want 4 in the attempt and 1 outside", calls)
			}
			if c.Dial != nil || c.DialTLS != nil {
				t.Errorf("the copy keeps a deprecated hook, which it would not count")
			}
			if (tc.t.Dial != nil) != hadDial || (tc.t.DialContext != nil) != hadDialContext {
				t.Errorf("the caller's Transport was changed")
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	if errors.Is(err, ErrDialLimit) != (err.Error() != "refused") {
		return "errors.Is(ErrDialLimit) disagrees with " + err.Error()
	}
	return err.Error()
}

// TestDialBoundKeepsHTTP2 checks that the copy speaks HTTP/2 exactly when
// the Transport it copies would: net/http turns HTTP/2 on by itself only
// without custom dialers or TLS config, and the copy has custom dialers.
func TestDialBoundKeepsHTTP2(t *testing.T) {
	dialCtx := func(context.Context, string, string) (net.Conn, error) { return nil, errors.New("no") }
	for _, tc := range []struct {
		name  string
		t     *http.Transport
		force bool
	}{
		{"zero Transport", &http.Transport{}, true},
		{"DefaultTransport", http.DefaultTransport.(*http.Transport), true},
		{"TLS config", &http.Transport{TLSClientConfig: &tls.Config{}}, false},
		{"TLS config, forced", &http.Transport{TLSClientConfig: &tls.Config{}, ForceAttemptHTTP2: true}, true},
		{"own dialer", &http.Transport{DialContext: dialCtx}, false},
		{"HTTP/2 off", &http.Transport{TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := newDialBound(tc.t).t.ForceAttemptHTTP2; got != tc.force {
				t.Errorf("copy's ForceAttemptHTTP2 = %v; want %v", got, tc.force)
			}
		})
	}
}

// TestDefaultTransportCopiedOnce checks that every Transport with a nil
// Base shares one copy of http.DefaultTransport, and so one pool of
// connections, as they would share http.DefaultTransport's.
func TestDefaultTransportCopiedOnce(t *testing.T) {
	a, b := (&Transport{}).resolve().base, (&Transport{Base: http.DefaultTransport}).resolve().base
	if _, ok := a.(*dialBound); !ok || a != b {
		t.Errorf("bases %T %p and %p; want one shared *dialBound", a, a, b)
	}
	if other := (&Transport{Base: &http.Transport{}}).resolve().base; other == a {
		t.Errorf("another *http.Transport shares DefaultTransport's copy")
	}
}
