package httpretry_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// countingBase counts the requests it is asked to send and answers 200.
type countingBase struct{ n int }

func (b *countingBase) RoundTrip(req *http.Request) (*http.Response, error) {
	b.n++
	return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody, Request: req}, nil
}

// TestNewInvalidPolicy: New and NewClient report an invalid policy at
// construction, with the *parse.Error that points into the text and the
// *schedule.Error that names the node.
func TestNewInvalidPolicy(t *testing.T) {
	check := func(t *testing.T, err error) {
		t.Helper()
		var pe *parse.Error
		var se *schedule.Error
		if !errors.As(err, &pe) || !errors.As(err, &se) || se.Path != "Intersect.B.Times" {
			t.Errorf("error %v; want a *parse.Error wrapping the *schedule.Error at Intersect.B.Times", err)
		}
		if want := "httpretry: 1:29: Times: n 0 is below 1"; err == nil || err.Error() != want {
			t.Errorf("error %q; want %q", err, want)
		}
	}
	const policy = "backoff(100ms, 30s) & times(0)"
	tr, err := httpretry.New(nil, policy)
	if tr != nil {
		t.Error("New returned a Transport with its error")
	}
	check(t, err)
	c, err := httpretry.NewClient(policy)
	if c != nil {
		t.Error("NewClient returned a Client with its error")
	}
	check(t, err)
}

// TestInvalidTransportSendsNothing: a Transport filled in by hand with an
// invalid Policy or field fails RoundTrip before Base sees the request.
func TestInvalidTransportSendsNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		tr   func() *httpretry.Transport
		path string // of the *schedule.Error, if the schedule is at fault
	}{
		{"zero Times", func() *httpretry.Transport { return &httpretry.Transport{Policy: schedule.Times{}} }, "Times"},
		{"invalid child", func() *httpretry.Transport {
			return &httpretry.Transport{Budget: ownBudgets(), Policy: schedule.Intersect{A: schedule.FullJitter(0, time.Second), B: schedule.Times{N: 3}}}
		}, "Intersect.A.Jittered.Inner.Exponential"},
		{"negative AttemptTimeout", func() *httpretry.Transport {
			return &httpretry.Transport{Budget: ownBudgets(), Policy: schedule.Times{N: 3}, Options: retry.Options{AttemptTimeout: -1}}
		}, ""},
		{"negative MaxPushback", func() *httpretry.Transport {
			return &httpretry.Transport{Budget: ownBudgets(), Policy: schedule.Times{N: 3}, Options: retry.Options{MaxPushback: -1}}
		}, ""},
		{"Options.Target set", func() *httpretry.Transport {
			return &httpretry.Transport{Budget: ownBudgets(), Options: retry.Options{Target: "http://x.test:80"}}
		}, ""},
		{"invalid Hedge", func() *httpretry.Transport {
			return &httpretry.Transport{Budget: ownBudgets(), Hedge: schedule.Times{}}
		}, "Times"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := &countingBase{}
			tr := tc.tr()
			tr.Base = base
			for range 2 {
				req, err := http.NewRequest("GET", "http://x.test", nil)
				if err != nil {
					t.Fatal(err)
				}
				resp, err := tr.RoundTrip(req)
				if err == nil || resp != nil {
					t.Fatalf("RoundTrip = %v, %v; want an error", resp, err)
				}
				var se *schedule.Error
				if errors.As(err, &se) != (tc.path != "") || (tc.path != "" && se.Path != tc.path) {
					t.Errorf("error %v; want a *schedule.Error at %q: %v", err, tc.path, tc.path != "")
				}
			}
			if base.n != 0 {
				t.Errorf("Base sent %d requests; want none", base.n)
			}
		})
	}
}
