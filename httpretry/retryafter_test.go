package httpretry_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/retry"
)

// epoch is a whole second, so that an HTTP-date (which has no fraction)
// is an exact number of seconds from it.
var epoch = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

// paced is what a call waited and how it ended.
type paced struct {
	Attempts int64
	Status   int
	Sleeps   []time.Duration
}

// TestRetryAfter checks Retry-After on 429 and 503 in both forms, on a
// virtual clock: the wait is the longer of the schedule's delay and the
// header's; a header past MaxPushback or the deadline, or one that
// cannot be read, returns the response at once; other statuses ignore it.
func TestRetryAfter(t *testing.T) {
	date := func(d time.Duration) string { return epoch.Add(d).Format(http.TimeFormat) }
	for _, tc := range []struct {
		name     string
		policy   string
		code     int
		after    string        // the first answer's Retry-After
		max      time.Duration // Transport.Options.MaxPushback
		deadline time.Duration // on the virtual clock, if positive
		want     paced
	}{
		{name: "503 seconds", code: 503, after: "2", want: paced{2, 200, []time.Duration{2 * time.Second}}},
		{name: "429 seconds", code: 429, after: "7", want: paced{2, 200, []time.Duration{7 * time.Second}}},
		{name: "503 date", code: 503, after: date(3 * time.Second), want: paced{2, 200, []time.Duration{3 * time.Second}}},
		{name: "429 date", code: 429, after: date(90 * time.Second), max: 2 * time.Minute, want: paced{2, 200, []time.Duration{90 * time.Second}}},
		{name: "date in the past", code: 503, after: date(-time.Hour), want: paced{2, 200, nil}},
		{name: "zero", code: 503, after: "0", want: paced{2, 200, nil}},
		{name: "schedule longer", policy: "spaced(5s) & times(3)", code: 503, after: "2", want: paced{2, 200, []time.Duration{5 * time.Second}}},
		{name: "header longer", policy: "spaced(5s) & times(3)", code: 503, after: "8", want: paced{2, 200, []time.Duration{8 * time.Second}}},
		{name: "at the default max", code: 503, after: "30", want: paced{2, 200, []time.Duration{30 * time.Second}}},
		{name: "past the default max", code: 503, after: "31", want: paced{1, 503, nil}},
		{name: "past MaxPushback", code: 429, after: "11", max: 10 * time.Second, want: paced{1, 429, nil}},
		{name: "past the deadline", code: 503, after: "10", deadline: 9 * time.Second, want: paced{1, 503, nil}},
		{name: "within the deadline", code: 503, after: "8", deadline: 9 * time.Second, want: paced{2, 200, []time.Duration{8 * time.Second}}},
		{name: "huge", code: 503, after: "99999999999999999999999", want: paced{1, 503, nil}},
		{name: "unreadable", code: 503, after: "soon", want: paced{1, 503, nil}},
		{name: "negative", code: 429, after: "-5", want: paced{1, 429, nil}},
		{name: "ignored on 502", code: 502, after: "20", want: paced{2, 200, nil}},
		{name: "ignored on 408", code: 408, after: "20", want: paced{2, 200, nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, func(n int64, w http.ResponseWriter, _ *http.Request) {
				if n == 1 {
					w.Header().Set("Retry-After", tc.after)
					w.WriteHeader(tc.code)
				}
			})
			policy := tc.policy
			if policy == "" {
				policy = "times(3)"
			}
			tr, err := httpretry.New(newBase(t), policy)
			if err != nil {
				t.Fatal(err)
			}
			clock := clockcap.Virtual(epoch)
			tr.Options.Clock, tr.Options.Random, tr.Options.MaxPushback = clock, randcap.Seeded(1), tc.max
			ctx := context.Background()
			if tc.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithDeadline(ctx, epoch.Add(tc.deadline)) // read on the virtual clock
				defer cancel()
			}
			resp, err := tr.RoundTrip(variant{method: "GET"}.request(t, ctx, srv.URL))
			if err != nil {
				t.Fatalf("RoundTrip: %v", err)
			}
			resp.Body.Close()
			got := paced{srv.requests.Load(), resp.StatusCode, clock.Sleeps()}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestRetryAfterPacesEveryRetry checks a server that asks for a pause on
// every answer: each wait honours the answer just received.
func TestRetryAfterPacesEveryRetry(t *testing.T) {
	srv := newServer(t, func(n int64, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", strconv.FormatInt(n, 10))
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	s, err := parse.Parse("times(4)")
	if err != nil {
		t.Fatal(err)
	}
	clock := clockcap.Virtual(epoch)
	tr := &httpretry.Transport{Budget: ownBudgets(), Base: newBase(t), Policy: s, Options: retry.Options{Caps: retry.Caps{Clock: clock}}}
	resp, err := tr.RoundTrip(variant{method: "GET"}.request(t, context.Background(), srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := paced{srv.requests.Load(), resp.StatusCode, clock.Sleeps()}
	want := paced{4, 503, []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func newVirtual() *clockcap.VirtualClock { return clockcap.Virtual(epoch) }

func seconds(n int64) time.Duration { return time.Duration(n) * time.Second }
