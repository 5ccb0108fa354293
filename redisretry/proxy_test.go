package redisretry_test

import (
	"context"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/recur-go/recur/redisretry"
	"github.com/recur-go/recur/redisretry/internal/redistest"
)

// proxy forwards loopback connections to a server, and can lose one
// reply: with drop set, the next bytes the server sends are not forwarded
// and both connections are closed, as when a network path dies after the
// server has run the command.
type proxy struct {
	addr  string
	drop  atomic.Bool
	l     net.Listener
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns []net.Conn
}

func startProxy(t *testing.T, target string) *proxy {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{addr: l.Addr().String(), l: l}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			p.wg.Add(2)
			go func() { defer p.wg.Done(); _, _ = io.Copy(s, c); s.Close() }()
			go func() { defer p.wg.Done(); p.replies(c, s) }()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		p.mu.Lock()
		for _, c := range p.conns {
			c.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return p
}

// replies forwards s's bytes to c until drop is set.
func (p *proxy) replies(c, s net.Conn) {
	buf := make([]byte, 4096)
	for {
		n, err := s.Read(buf)
		if n > 0 && p.drop.CompareAndSwap(true, false) {
			c.Close()
			s.Close()
			return
		}
		if n > 0 {
			if _, err := c.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			c.Close()
			return
		}
	}
}

// TestIncrReplyLost: the server runs an INCR and the connection dies
// before its reply arrives. go-redis with its default retries sends it
// again, and it runs twice; through the hook it is sent once, and the
// caller gets the connection error.
func TestIncrReplyLost(t *testing.T) {
	s := redistest.Start(t)
	admin := s.Admin(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		rdb  func(addr string) *redis.Client
		want int64
	}{
		{"go-redis-default", func(addr string) *redis.Client {
			rdb := redis.NewClient(&redis.Options{Addr: addr})
			t.Cleanup(func() { rdb.Close() })
			return rdb
		}, 2},
		{"redisretry", func(addr string) *redis.Client { return newClient(t, addr, redisretry.Config{}) }, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startProxy(t, s.Addr)
			rdb := tc.rdb(p.addr)
			if err := rdb.Ping(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			key := "counter:" + tc.name
			p.drop.Store(true)
			err := rdb.Incr(ctx, key).Err()
			n, gerr := admin.Get(ctx, key).Int64()
			if gerr != nil {
				t.Fatal(gerr)
			}
			if n != tc.want {
				t.Errorf("the INCR ran %d times (its error: %v), want %d", n, err, tc.want)
			}
			if tc.name == "redisretry" && redisretry.Code(err) != redisretry.CodeClosed {
				t.Errorf("got %v, want the closed connection's error", err)
			}
		})
	}
}
