package redisbreaker_test

import (
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/redisretry/internal/redistest"
	"github.com/recur-go/recur/redisretry/redisbreaker"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
	"github.com/redis/go-redis/v9"
)

func newStore(t *testing.T, addr string) *redisbreaker.Store {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true, MaxRetries: -1, DialTimeout: 50 * time.Millisecond})
	t.Cleanup(func() { rdb.Close() })
	s, err := redisbreaker.New(redisbreaker.Config{Client: rdb})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fleet returns n breakers named "api", each with its own client and
// store, as n processes would have, flushed by hand.
func fleet(t *testing.T, addr string, n int, c breaker.Config) []*breaker.Breaker {
	t.Helper()
	bs := make([]*breaker.Breaker, n)
	for i := range bs {
		c := c
		c.Name, c.Shared, c.SharedFlush = "api", newStore(t, addr), -1
		b, err := breaker.New(c)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		bs[i] = b
	}
	return bs
}

func call(b *breaker.Breaker, v verdict.Verdict) error {
	p, err := b.Allow()
	if err != nil {
		return err
	}
	b.Record(&p, v)
	return nil
}

func states(bs []*breaker.Breaker) []breaker.State {
	s := make([]breaker.State, len(bs))
	for i, b := range bs {
		s[i] = b.State()
	}
	return s
}

func all(n int, s breaker.State) []breaker.State {
	r := make([]breaker.State, n)
	for i := range r {
		r[i] = s
	}
	return r
}

// waitStates waits, a bounded number of times, for the pub/sub messages
// to bring every breaker to want.
func waitStates(t *testing.T, bs []*breaker.Breaker, want breaker.State) {
	t.Helper()
	for range 200 {
		if cmp.Equal(all(len(bs), want), states(bs)) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("(-want +got):\n%s", cmp.Diff(all(len(bs), want), states(bs)))
}

func TestSharedInRedis(t *testing.T) {
	srv := redistest.Start(t)
	bs := fleet(t, srv.Addr, 5, breaker.Config{OpenFor: schedule.Exponential{Base: 100 * time.Millisecond, FactorPct: 200, Cap: time.Second}})
	for _, b := range bs {
		call(b, verdict.Transient)
		b.Flush()
	}
	waitStates(t, bs, breaker.Open)

	// One probe across the fleet per half-open spell; a failed one opens
	// every instance for the second delay.
	time.Sleep(100 * time.Millisecond)
	var got []int
	for round := range 3 {
		for i, b := range bs {
			if p, err := b.Allow(); err == nil {
				got = append(got, i+10*round)
				b.Record(&p, verdict.Failure)
			}
		}
	}
	if len(got) != 1 {
		t.Fatalf("probes: %v, want one", got)
	}
	waitStates(t, bs, breaker.Open)
	var oe *breaker.OpenError
	for i, b := range bs {
		_, err := b.Allow()
		if !errorsAs(err, &oe) || oe.For != 200*time.Millisecond {
			t.Errorf("instance %d: %v, want open for 200ms", i, err)
		}
	}

	// Redis killed: calls go on, each instance on its own.
	srv.Kill()
	time.Sleep(200 * time.Millisecond)
	probes := 0
	for _, b := range bs {
		// The guard opens after 3 failed operations; until then a probe
		// whose slot cannot be claimed is refused.
		for range 10 {
			b.Flush()
			if p, err := b.Allow(); err == nil {
				probes++
				b.Record(&p, verdict.Success)
				break
			}
		}
	}
	if probes != len(bs) {
		t.Errorf("redis down: %d instances probed, want all %d", probes, len(bs))
	}
	// Redis back, empty: the breakers that opened while it was away win
	// over its closed state.
	srv.Restart()
	for range 5 {
		call(bs[0], verdict.Transient)
	}
	if diff := cmp.Diff(breaker.Open, bs[0].State()); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	for range 400 {
		for _, b := range bs {
			b.Flush()
		}
		if cmp.Equal(all(len(bs), breaker.Open), states(bs)) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if diff := cmp.Diff(all(len(bs), breaker.Open), states(bs)); diff != "" {
		t.Errorf("redis back (-want +got):\n%s", diff)
	}
}

func errorsAs(err error, target **breaker.OpenError) bool { return errors.As(err, target) }

// The closed path with the state shared in Redis against a local
// breaker: Redis is reached only by the background flusher.
func BenchmarkClosed(b *testing.B) {
	srv := redistest.Start(b)
	for _, store := range []string{"none", "redis"} {
		b.Run("store="+store, func(b *testing.B) {
			c := breaker.Config{Name: "api"}
			if store == "redis" {
				rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, ContextTimeoutEnabled: true, MaxRetries: -1})
				defer rdb.Close()
				s, err := redisbreaker.New(redisbreaker.Config{Client: rdb})
				if err != nil {
					b.Fatal(err)
				}
				c.Shared = s
			}
			br, err := breaker.New(c)
			if err != nil {
				b.Fatal(err)
			}
			defer br.Close()
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					p, err := br.Allow()
					if err != nil {
						b.Fatal(err)
					}
					br.Record(&p, verdict.Success)
				}
			})
		})
	}
}

// A Redis that accepts connections and never answers does not hold up
// New, nor a Registry's first Get of a target: the subscription is made
// on the link's own goroutine. The bound below is a hang detector, far
// above the instant New takes and far below the client's read timeout.
func TestJoinDoesNotWait(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never answered
			mu.Unlock()
		}
	}()
	hangUp := func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	}
	t.Cleanup(hangUp)
	// go-redis bounds a subscription's reads by ReadTimeout, not by the
	// context: a Join that subscribed in place would wait that long.
	rdb := redis.NewClient(&redis.Options{Addr: l.Addr().String(), ContextTimeoutEnabled: true, MaxRetries: -1, ReadTimeout: time.Minute})
	t.Cleanup(func() { rdb.Close() })
	store, err := redisbreaker.New(redisbreaker.Config{Client: rdb})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *breaker.Registry, 1)
	go func() {
		r, err := breaker.NewRegistry(breaker.Config{Shared: store}, 0)
		if err != nil {
			t.Error(err)
			done <- nil
			return
		}
		r.Get("https://a:443")
		done <- r
	}()
	select {
	case r := <-done:
		if r == nil {
			return
		}
		p, err := r.Get("https://a:443").Allow()
		if err != nil {
			t.Errorf("a new shared breaker refused a call: %v", err)
		}
		r.Get("https://a:443").Record(&p, verdict.Success)
		hangUp() // so that the subscription's pending read ends now
		r.Close()
	case <-time.After(20 * time.Second):
		t.Fatal("Registry.Get of a shared breaker waited for a Redis that does not answer")
	}
}
