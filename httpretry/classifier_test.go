package httpretry_test

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// classedError is what classifyingBase returns: an error of a protocol
// httpretry does not know, which only the Base can classify.
type classedError struct{ class httpretry.ErrorClass }

func (e *classedError) Error() string { return "fake protocol error (" + e.class.String() + ")" }

// classifyingBase is a Base that fails every attempt with err and
// classifies its own errors as an HTTP/3 Base does: by their type. It
// answers 200 to attempts past fails, if fails is positive.
type classifyingBase struct {
	err      error
	fails    int64
	attempts atomic.Int64
	bodies   sync.Map                    // the request bodies it received, by attempt
	asked    []error                     // what ClassifyError was asked about
	mu       sync.Mutex                  // guards asked
	override func(r *http.Request) error // if set, the error of each attempt
}

func (b *classifyingBase) RoundTrip(r *http.Request) (*http.Response, error) {
	n := b.attempts.Add(1)
	if r.Body != nil {
		body, _ := io.ReadAll(r.Body)
		r.Body.Close()
		b.bodies.Store(n, string(body))
	}
	if b.fails > 0 && n > b.fails {
		return &http.Response{StatusCode: 200, Status: "200 OK", Body: io.NopCloser(strings.NewReader("ok")), Request: r}, nil
	}
	if b.override != nil {
		return nil, b.override(r)
	}
	return nil, b.err
}

func (b *classifyingBase) ClassifyError(err error) httpretry.ErrorClass {
	b.mu.Lock()
	b.asked = append(b.asked, err)
	b.mu.Unlock()
	if ce, ok := errors.AsType[*classedError](err); ok {
		return ce.class
	}
	return httpretry.Unclassified
}

// plainBase hides a Base's ClassifyError: a wrapper that does not pass
// the interface on.
type plainBase struct{ b http.RoundTripper }

func (p plainBase) RoundTrip(r *http.Request) (*http.Response, error) { return p.b.RoundTrip(r) }

// TestErrorClassifier runs every class through a Base that classifies
// its own errors, for a GET, a POST without a key whose body can be sent
// again, and one whose body cannot, on a policy of three attempts: the
// attempts made, the failures the breaker counted and the reason label
// of the first attempt follow the class, as the decision table in
// docs/http.md says for the failures each class stands for.
func TestErrorClassifier(t *testing.T) {
	type row struct {
		GET, POST, Oneshot judged
		Label              string
	}
	all3 := judged{Attempts: 3, Failures: 3}
	for _, tc := range []struct {
		name string
		err  error
		want row
	}{
		{"NotSent", &classedError{httpretry.NotSent}, row{all3, all3, judged{1, 1}, "dial"}},
		{"Rejected", &classedError{httpretry.Rejected}, row{judged{3, 0}, judged{3, 0}, judged{1, 0}, "refused-stream"}},
		{"ConnectionLost", &classedError{httpretry.ConnectionLost}, row{all3, judged{1, 1}, judged{1, 1}, "connection"}},
		{"Unclassified", &classedError{httpretry.Unclassified}, row{judged{1, 0}, judged{1, 0}, judged{1, 0}, "error"}},
		{"a class this version does not know", &classedError{httpretry.ErrorClass(200)}, row{judged{1, 0}, judged{1, 0}, judged{1, 0}, "error"}},
		{"NotSent for a host DNS does not know", fmt.Errorf("%w: %w", &classedError{httpretry.NotSent},
			&net.DNSError{Err: "no such host", Name: "x.test", IsNotFound: true}), row{judged{1, 1}, judged{1, 1}, judged{1, 1}, "no-host"}},
		{"Rejected, but a TLS failure", fmt.Errorf("%w: %w", &classedError{httpretry.Rejected}, x509.UnknownAuthorityError{}),
			row{judged{1, 1}, judged{1, 1}, judged{1, 1}, "tls"}},
		// Unclassified leaves httpretry's own rules to judge: a reset
		// connection is still one.
		{"Unclassified reset", fmt.Errorf("%w: %w", &classedError{httpretry.Unclassified}, &net.OpError{Op: "read", Net: "tcp", Err: errors.New("reset")}),
			row{all3, judged{1, 1}, judged{1, 1}, "connection"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got row
			for _, v := range []variant{{name: "GET", method: "GET"}, {name: "POST", method: "POST", body: "rewind"}, {name: "once", method: "POST", body: "once"}} {
				base := &classifyingBase{err: tc.err}
				reg := counter(t)
				var labels []string
				tr := &httpretry.Transport{Budget: ownBudgets(), Base: base, Policy: schedule.Times{N: 3}, Breaker: reg,
					Options: retry.Options{Observer: retry.ObserverFunc(func(_ context.Context, e retry.Event) {
						if e.Kind == retry.Attempted {
							labels = append(labels, e.Label)
						}
					})}}
				_, err := tr.RoundTrip(v.request(t, context.Background(), "http://x.test"))
				if !errors.Is(err, tc.err) {
					t.Errorf("%s: err = %v; want it to wrap %v", v.name, err, tc.err)
				}
				j := judged{base.attempts.Load(), reg.Get("http://x.test:80").Stats().Failures}
				switch v.name {
				case "GET":
					got.GET = j
					got.Label = labels[0]
				case "POST":
					got.POST = j
				default:
					got.Oneshot = j
				}
				if v.name == "POST" && j.Attempts > 1 {
					for n := int64(1); n <= j.Attempts; n++ {
						if b, _ := base.bodies.Load(n); b != "payload of POST" {
							t.Errorf("attempt %d sent body %q", n, b)
						}
					}
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestErrorClassifierOnlyOnTheBase: the interface is looked for on the
// Base itself. Behind a wrapper that does not implement it, the same
// error is judged by httpretry's rules alone (an unknown error: not
// retried).
func TestErrorClassifierOnlyOnTheBase(t *testing.T) {
	base := &classifyingBase{err: &classedError{httpretry.Rejected}}
	tr := &httpretry.Transport{Budget: ownBudgets(), Base: plainBase{base}, Policy: schedule.Times{N: 3}}
	if _, err := tr.RoundTrip(variant{method: "POST", body: "rewind"}.request(t, context.Background(), "http://x.test")); err == nil {
		t.Fatal("no error")
	}
	if n := base.attempts.Load(); n != 1 || len(base.asked) != 0 {
		t.Errorf("%d attempts, ClassifyError asked %d times; want 1 and 0", n, len(base.asked))
	}
}

// TestErrorClassifierNotAskedWhenCallerGaveUp: an attempt that failed
// because the caller canceled is the caller's doing, whatever the Base
// would say of its error: it is neither retried nor asked about.
func TestErrorClassifierNotAskedWhenCallerGaveUp(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	base := &classifyingBase{override: func(r *http.Request) error {
		cancel()
		return fmt.Errorf("%w: %w", &classedError{httpretry.NotSent}, r.Context().Err())
	}}
	reg := counter(t)
	tr := &httpretry.Transport{Budget: ownBudgets(), Base: base, Policy: schedule.Times{N: 3}, Breaker: reg}
	_, err := tr.RoundTrip(variant{method: "GET"}.request(t, ctx, "http://x.test"))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v; want context.Canceled", err)
	}
	if n, f := base.attempts.Load(), reg.Get("http://x.test:80").Stats().Failures; n != 1 || f != 0 || len(base.asked) != 0 {
		t.Errorf("%d attempts, %d failures, ClassifyError asked %d times; want 1, 0, 0", n, f, len(base.asked))
	}
}

// TestErrorClassifierSeesAttemptTimeout: an attempt that
// Options.AttemptTimeout cut short is classified through the
// Transport's wrapping: ClassifyError finds both ErrAttemptTimeout and
// the Base's own error in it. A Base that proves such an attempt never
// left (NotSent) has a POST sent again; the Base's error is then the
// last error's cause.
func TestErrorClassifierSeesAttemptTimeout(t *testing.T) {
	base := &classifyingBase{fails: 2, override: func(r *http.Request) error {
		<-r.Context().Done()
		return &classedError{httpretry.NotSent}
	}}
	tr := &httpretry.Transport{Budget: ownBudgets(), Base: base, Policy: schedule.Times{N: 3},
		Options: retry.Options{AttemptTimeout: 20 * time.Millisecond}}
	resp, err := tr.RoundTrip(variant{method: "POST", body: "rewind"}.request(t, context.Background(), "http://x.test"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if n := base.attempts.Load(); n != 3 {
		t.Errorf("%d attempts; want 3", n)
	}
	for _, e := range base.asked {
		if !errors.Is(e, httpretry.ErrAttemptTimeout) || !errors.As(e, new(*classedError)) {
			t.Errorf("ClassifyError was given %v; want ErrAttemptTimeout and the Base's error in it", e)
		}
	}
	if len(base.asked) != 2 {
		t.Errorf("ClassifyError asked %d times; want 2", len(base.asked))
	}
}

// TestErrorClassifierHedged: a hedged GET whose first copy is rejected
// starts the next copy at once, as it would after a refused stream.
func TestErrorClassifierHedged(t *testing.T) {
	base := &classifyingBase{fails: 1, err: &classedError{httpretry.Rejected}}
	tr := &httpretry.Transport{Budget: ownBudgets(), Base: base, Hedge: schedule.Intersect{A: schedule.Spaced{Every: time.Hour}, B: schedule.Times{N: 3}}}
	start := time.Now()
	resp, err := tr.RoundTrip(variant{method: "GET"}.request(t, context.Background(), "http://x.test"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if n := base.attempts.Load(); n != 2 || time.Since(start) > 10*time.Second {
		t.Errorf("%d copies in %v; want 2, the second at once", n, time.Since(start))
	}
}

func TestErrorClassString(t *testing.T) {
	got := fmt.Sprint(httpretry.Unclassified, httpretry.NotSent, httpretry.Rejected, httpretry.ConnectionLost, httpretry.ErrorClass(9))
	if want := "Unclassified NotSent Rejected ConnectionLost ErrorClass(9)"; got != want {
		t.Errorf("got %q; want %q", got, want)
	}
}
