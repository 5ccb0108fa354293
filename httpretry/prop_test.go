package httpretry_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	"pgregory.net/rapid"
)

// TestPropAttemptsFollowTheTable draws a request variant, a sequence of
// statuses the server answers with, an attempt limit and the Retry500
// switch, sends the request to one real server, and checks the server
// saw exactly the attempts the decision table allows: the call stops at
// the first answer that is not retried, or at the limit; each attempt
// carries the same body; and the status returned is the last one.
func TestPropAttemptsFollowTheTable(t *testing.T) {
	var (
		mu      sync.Mutex
		answers []int    // what the server answers, in order; 200 once they run out
		bodies  []string // what it read
	)
	srv := newServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		bodies = append(bodies, string(b))
		code := 200
		if len(answers) > 0 {
			code, answers = answers[0], answers[1:]
		}
		w.WriteHeader(code)
	})
	base := newBase(t)
	rapid.Check(t, func(t *rapid.T) {
		v := rapid.SampledFrom(variants).Draw(t, "variant")
		seq := rapid.SliceOfN(rapid.SampledFrom(codes), 1, 6).Draw(t, "statuses")
		n := rapid.IntRange(1, 5).Draw(t, "attempts")
		retry500 := rapid.Bool().Draw(t, "retry500")
		mu.Lock()
		answers, bodies = append([]int(nil), seq...), nil
		mu.Unlock()

		tr := &httpretry.Transport{Budget: ownBudgets(), Base: base, Policy: schedule.Times{N: n}, Retry500: retry500}
		resp, err := tr.RoundTrip(v.request(t, context.Background(), srv.URL))
		if err != nil {
			t.Fatalf("RoundTrip: %v", err)
		}
		resp.Body.Close()

		// The specification, step by step.
		want, status := 0, 0
		for want < n {
			status = 200
			if want < len(seq) {
				status = seq[want]
			}
			want++
			if !verdictOf(status, v.repeatable(), retry500).Retry() {
				break
			}
		}
		mu.Lock()
		defer mu.Unlock()
		wantBodies := make([]string, want)
		for i := range wantBodies {
			if v.body != "" {
				wantBodies[i] = "payload of " + v.name
			}
		}
		if diff := cmp.Diff(wantBodies, bodies); diff != "" {
			t.Errorf("bodies per attempt (-want +got):\n%s", diff)
		}
		if resp.StatusCode != status {
			t.Errorf("status %d; want %d", resp.StatusCode, status)
		}
	})
}

// TestPropRetryAfterNeverExceedsTheCap draws a Retry-After in seconds and
// a cap: the call waits exactly that long when it is within the cap, and
// otherwise returns the 503 without waiting.
func TestPropRetryAfterNeverExceedsTheCap(t *testing.T) {
	var after string
	var mu sync.Mutex
	srv := newServer(t, func(n int64, w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if n%2 == 1 {
			w.Header().Set("Retry-After", after)
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	base := newBase(t)
	rapid.Check(t, func(t *rapid.T) {
		secs := rapid.Int64Range(0, 1e6).Draw(t, "retry-after")
		capSecs := rapid.Int64Range(1, 1e6).Draw(t, "cap")
		mu.Lock()
		after = strconv.FormatInt(secs, 10)
		mu.Unlock()
		// Each check starts on an odd request: a call of one attempt is
		// followed by a filler request.
		clock := newVirtual()
		tr := &httpretry.Transport{Budget: ownBudgets(), Base: base, Policy: schedule.Times{N: 2}, Options: retry.Options{Caps: retry.Caps{Clock: clock}, MaxPushback: seconds(capSecs)}}
		resp, err := tr.RoundTrip(variant{method: "GET"}.request(t, context.Background(), srv.URL))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got := paced{Status: resp.StatusCode, Sleeps: clock.Sleeps()}
		want := paced{Status: 200}
		if secs > capSecs {
			want.Status = 503
			filler, err := base.RoundTrip(variant{method: "GET"}.request(t, context.Background(), srv.URL))
			if err != nil {
				t.Fatal(err)
			}
			filler.Body.Close()
		} else if secs > 0 {
			want.Sleeps = append(want.Sleeps, seconds(secs))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}
