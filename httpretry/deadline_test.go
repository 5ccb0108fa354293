package httpretry_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// pipeServer serves HTTP/1.1 over in-memory pipes, so that a test runs in
// a testing/synctest bubble, where time is fake and exact. Each request
// takes work of fake time, then gets answer's status; seen records each
// request's deadline header.
type pipeServer struct {
	work   time.Duration
	answer func(n int) int
	header string

	mu   sync.Mutex
	seen []string // each request's deadline header
}

// attempts returns how many requests the server has read.
func (s *pipeServer) attempts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.seen)
}

// headers returns each request's deadline header.
func (s *pipeServer) headers() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.seen)
}

// transport returns a net/http transport whose every dial opens a pipe to
// s, served on a goroutine of the bubble.
func (s *pipeServer) transport() *http.Transport {
	return &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) {
		client, server := net.Pipe()
		go s.serve(server)
		return client, nil
	}}
}

func (s *pipeServer) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		io.Copy(io.Discard, req.Body)
		s.mu.Lock()
		s.seen = append(s.seen, req.Header.Get(s.header))
		n := len(s.seen)
		s.mu.Unlock()
		time.Sleep(s.work)
		code := s.answer(n)
		if _, err := fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Length: 0\r\n\r\n", code, http.StatusText(code)); err != nil {
			return
		}
	}
}

// settle ends a bubble's test: it closes the idle connections of tr (those
// of its copy of Base) and lets fake time run until every server goroutine
// has finished its work and seen its pipe closed, so that the bubble ends
// with no goroutine left.
func settle(tr *httpretry.Transport) {
	tr.CloseIdleConnections()
	time.Sleep(time.Hour)
	synctest.Wait()
}

// TestDeadlineBoundsAllAttempts checks, on fake time, that a server that
// takes 700ms per answer cannot make a call outlive its 2s deadline: the
// third attempt is cut off at exactly 2s.
func TestDeadlineBoundsAllAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &pipeServer{work: 700 * time.Millisecond, answer: func(int) int { return 503 }}
		base := s.transport()
		tr := &httpretry.Transport{Budget: ownBudgets(), Base: base, Policy: schedule.Times{N: 10}}
		defer settle(tr)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		start := time.Now()
		_, err := tr.RoundTrip(variant{method: "GET"}.request(t, ctx, "http://pipe.test/"))
		elapsed := time.Since(start)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v; want context.DeadlineExceeded", err)
		}
		if elapsed != 2*time.Second || s.attempts() != 3 {
			t.Errorf("returned after %v and %d attempts; want 2s and 3", elapsed, s.attempts())
		}
	})
}

// TestNoRetryIntoTheDeadline checks that a retry whose wait would end past
// the deadline is not made: the last answer comes back at once.
func TestNoRetryIntoTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &pipeServer{work: 100 * time.Millisecond, answer: func(int) int { return 503 }}
		base := s.transport()
		tr := &httpretry.Transport{Budget: ownBudgets(), Base: base, Policy: schedule.Intersect{A: schedule.Spaced{Every: time.Second}, B: schedule.Times{N: 10}}}
		defer settle(tr)
		ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
		defer cancel()
		start := time.Now()
		resp, err := tr.RoundTrip(variant{method: "GET"}.request(t, ctx, "http://pipe.test/"))
		if err != nil {
			t.Fatalf("RoundTrip: %v; want the last 503", err)
		}
		resp.Body.Close()
		// Attempts at 0, 1s and 2s; a fourth at 3s would be past 2.5s.
		if elapsed := time.Since(start); elapsed != 2100*time.Millisecond || s.attempts() != 3 || resp.StatusCode != 503 {
			t.Errorf("returned %d after %v and %d attempts; want 503 after 2.1s and 3", resp.StatusCode, elapsed, s.attempts())
		}
	})
}

// TestDeadlineHeader checks deadline propagation (Google SRE book, chapter 22): each attempt
// tells the server the time it has left — the caller's remaining budget,
// or the attempt timeout if that is shorter — never a fresh timeout.
func TestDeadlineHeader(t *testing.T) {
	for _, tc := range []struct {
		name     string
		deadline time.Duration // 0: none
		timeout  time.Duration
		want     []string
	}{
		{name: "deadline", deadline: 3 * time.Second, want: []string{"3000", "2300", "1600"}},
		{name: "attempt timeout shorter at first", deadline: 3 * time.Second, timeout: 2 * time.Second, want: []string{"2000", "2000", "1600"}},
		{name: "attempt timeout only", timeout: 1500 * time.Millisecond, want: []string{"1500", "1500", "1500"}},
		{name: "neither", want: []string{"", "", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &pipeServer{work: 700 * time.Millisecond, header: "X-Request-Deadline-Ms", answer: func(n int) int {
					if n < 3 {
						return 503
					}
					return 200
				}}
				base := s.transport()
				tr := &httpretry.Transport{Budget: ownBudgets(), Base: base, Policy: schedule.Times{N: 3}, DeadlineHeader: "x-request-deadline-ms", Options: retry.Options{AttemptTimeout: tc.timeout}}
				defer settle(tr)
				ctx := context.Background()
				if tc.deadline > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tc.deadline)
					defer cancel()
				}
				req := variant{method: "GET"}.request(t, ctx, "http://pipe.test/")
				resp, err := tr.RoundTrip(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if diff := cmp.Diff(tc.want, s.headers()); diff != "" {
					t.Errorf("deadline headers seen (-want +got):\n%s", diff)
				}
				if h := req.Header.Get("X-Request-Deadline-Ms"); h != "" {
					t.Errorf("the caller's request was changed: it has the header %q", h)
				}
			})
		})
	}
}

// TestCancelDuringWait cancels the call while it waits before a retry:
// it returns at once with context.Canceled and no response, the discarded
// one already closed.
func TestCancelDuringWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &pipeServer{answer: func(int) int { return 503 }}
		base := s.transport()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		tr := &httpretry.Transport{
			Budget: ownBudgets(),
			Base:   base,
			Policy: schedule.Intersect{A: schedule.Spaced{Every: time.Hour}, B: schedule.Times{N: 3}},
			Options: retry.Options{Observer: retry.ObserverFunc(func(_ context.Context, e retry.Event) {
				if e.Kind == retry.Retrying {
					time.AfterFunc(time.Minute, cancel)
				}
			})},
		}
		defer settle(tr)
		start := time.Now()
		resp, err := tr.RoundTrip(variant{method: "GET"}.request(t, ctx, "http://pipe.test/"))
		var re *retry.Error
		if resp != nil || !errors.As(err, &re) || re.Reason != retry.Canceled || !errors.Is(err, context.Canceled) {
			t.Errorf("RoundTrip = %v, %v; want nil and a *retry.Error with Reason Canceled", resp, err)
		}
		if elapsed := time.Since(start); elapsed != time.Minute || s.attempts() != 1 {
			t.Errorf("returned after %v and %d attempts; want 1m and 1", elapsed, s.attempts())
		}
	})
}
