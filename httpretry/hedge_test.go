package httpretry_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/schedule"
)

// firstSlow answers the first request it gets after d (or when its client
// gives up on it) and every later one at once, with the request's number
// in the body.
func firstSlow(d time.Duration) func(int64, http.ResponseWriter, *http.Request) {
	return func(n int64, w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if n == 1 {
			select {
			case <-time.After(d):
			case <-r.Context().Done():
				return
			}
		}
		fmt.Fprintf(w, "answer %d", n)
	}
}

var hedge10ms = schedule.Intersect{A: schedule.Spaced{Every: 10 * time.Millisecond}, B: schedule.Times{N: 3}}

// A GET whose first copy is slow is answered by a second copy started
// 10ms later; the first is canceled.
func TestHedgeGET(t *testing.T) {
	srv := newServer(t, firstSlow(5*time.Second))
	tr := &httpretry.Transport{Base: newBase(t), Hedge: hedge10ms, Budget: ownBudgets()}
	begin := time.Now()
	resp, err := tr.RoundTrip(variant{method: "GET"}.request(t, context.Background(), srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if took := time.Since(begin); string(b) != "answer 2" || took > 2*time.Second {
		t.Errorf("got %q after %v; want copy 2's answer, in about 10ms", b, took)
	}
}

// A request that may not be repeated (a POST without an idempotency key)
// is never hedged, per Transport or per request: one request, the slow
// one.
func TestHedgeNeverPOSTWithoutKey(t *testing.T) {
	for _, tc := range []struct {
		name string
		tr   *httpretry.Transport
		ctx  context.Context
	}{
		{"Transport", &httpretry.Transport{Hedge: hedge10ms, Budget: ownBudgets()}, context.Background()},
		{"WithHedge", &httpretry.Transport{Budget: ownBudgets()}, httpretry.WithHedge(context.Background(), hedge10ms)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, firstSlow(50*time.Millisecond))
			tc.tr.Base = newBase(t)
			resp, err := tc.tr.RoundTrip(variant{name: "order", method: "POST", body: "rewind"}.request(t, tc.ctx, srv.URL))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(b) != "answer 1" || srv.requests.Load() != 1 {
				t.Errorf("got %q after %d requests; want one request, answered", b, srv.requests.Load())
			}
		})
	}
}

// A POST with an idempotency key may be repeated, so it is hedged; its
// body goes with every copy.
func TestHedgePOSTWithKey(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	srv := newServer(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		if n == 1 {
			select {
			case <-time.After(5 * time.Second):
			case <-r.Context().Done():
				return
			}
		}
		fmt.Fprintf(w, "answer %d", n)
	})
	tr := &httpretry.Transport{Base: newBase(t), Hedge: hedge10ms, Budget: ownBudgets()}
	req := variant{name: "order", method: "POST", body: "rewind", key: "Idempotency-Key"}.request(t, context.Background(), srv.URL)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	mu.Lock()
	defer mu.Unlock()
	if string(b) != "answer 2" || strings.Join(bodies, ",") != "payload of order,payload of order" {
		t.Errorf("got %q, bodies %q; want copy 2's answer and the body sent twice", b, bodies)
	}
}
