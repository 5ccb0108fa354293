package redisretry_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/retry"
	"github.com/redis/go-redis/v9"

	"github.com/recur-go/recur/redisretry"
	"github.com/recur-go/recur/redisretry/internal/redistest"
)

// cutter is a loopback TCP proxy to a server that cuts the connection at
// a chosen byte of the next command: after n bytes of the request (the
// rest never reaches the server; n = 0 is "before send"), or after n
// bytes of the reply (the request went whole; n = 0 is "after send, the
// reply lost", n = the reply's length is "after the server's reply").
// Armed, it counts the bytes either way from the moment of arming; with
// no cut armed it only counts, so that a first run measures a command.
type cutter struct {
	addr string
	l    net.Listener
	wg   sync.WaitGroup

	mu       sync.Mutex
	conns    []net.Conn
	side     int // cutNone, cutRequest, cutReply
	at       int
	req, rep int // bytes since arming
}

const (
	cutNone = iota
	cutRequest
	cutReply
)

func startCutter(t *testing.T, target string) *cutter {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutter{addr: l.Addr().String(), l: l}
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
			go func() { defer p.wg.Done(); p.pipe(c, s, cutRequest) }()
			go func() { defer p.wg.Done(); p.pipe(s, c, cutReply) }()
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

// arm sets the next cut and zeroes the counts.
func (p *cutter) arm(side, at int) {
	p.mu.Lock()
	p.side, p.at, p.req, p.rep = side, at, 0, 0
	p.mu.Unlock()
}

// counts returns the request's and the reply's bytes since arming.
func (p *cutter) counts() (req, rep int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.req, p.rep
}

// pipe copies from to to, counting its bytes as side's and cutting both
// connections where the armed cut says.
func (p *cutter) pipe(from, to net.Conn, side int) {
	defer from.Close()
	defer to.Close()
	buf := make([]byte, 4096)
	for {
		n, err := from.Read(buf)
		if n > 0 {
			p.mu.Lock()
			count := &p.req
			if side == cutReply {
				count = &p.rep
			}
			send, cut := n, false
			if p.side == side && *count+n >= p.at {
				send, cut = p.at-*count, true
				p.side = cutNone
			}
			*count += send
			p.mu.Unlock()
			if send > 0 {
				if _, err := to.Write(buf[:send]); err != nil {
					return
				}
			}
			if cut {
				return // both closed: the rest never arrives
			}
		}
		if err != nil {
			return // io.EOF or a closed connection: both ends close
		}
	}
}

// TestCutMatrix: INCR, LPUSH, EVAL, a pipeline and a MULTI/EXEC
// transaction, none marked idempotent, each cut at every byte of its request
// (0 is before send) and of its reply (0 is after send, the whole reply
// is after the server's reply): the server ran each command at most once
// (0 duplicate side effects); a cut inside the request ran nothing, but
// for a pipeline's commands already whole.
func TestCutMatrix(t *testing.T) {
	srv := redistest.Start(t)
	admin := srv.Admin(t)
	p := startCutter(t, srv.Addr)
	ctx := context.Background()
	rdb, err := redisretry.NewClient(&redis.Options{Addr: p.addr, PoolSize: 1, DialTimeout: time.Second, ReadTimeout: time.Second},
		redisretry.Config{NoBreaker: true, Options: retry.Options{Unthrottled: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	ops := []struct {
		name string
		run  func() error
	}{
		{"INCR", func() error { return rdb.Incr(ctx, "a").Err() }},
		{"LPUSH", func() error { return rdb.LPush(ctx, "b", "x").Err() }},
		{"EVAL", func() error {
			return rdb.Eval(ctx, `redis.call('INCR', KEYS[1]); return redis.call('LPUSH', KEYS[2], 'x')`, []string{"a", "b"}).Err()
		}},
		{"pipeline", func() error {
			_, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
				p.Incr(ctx, "a")
				p.LPush(ctx, "b", "x")
				return nil
			})
			return err
		}},
		{"multi-exec", func() error {
			_, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Incr(ctx, "a")
				p.LPush(ctx, "b", "x")
				return nil
			})
			return err
		}},
	}
	// effects returns how many times the server ran the op's writes.
	effects := func(t *testing.T) (int64, int64) {
		t.Helper()
		time.Sleep(2 * time.Millisecond) // the server runs what reached it
		a, err := admin.Get(ctx, "a").Int64()
		if err == redis.Nil {
			a, err = 0, nil
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := admin.LLen(ctx, "b").Result()
		if err != nil {
			t.Fatal(err)
		}
		return a, b
	}
	// warm makes sure the pool's one connection is live (the first Ping
	// after a cut may meet the dead one) and set up for pipelines and
	// transactions too (go-redis makes a connection ready for its first
	// pipeline with a round of its own), so that an armed cut meets the
	// command, not a handshake.
	warm := func(t *testing.T) {
		t.Helper()
		var err error
		for range 3 {
			if err = rdb.Ping(ctx).Err(); err != nil {
				continue
			}
			if _, err = rdb.Pipelined(ctx, func(p redis.Pipeliner) error { return p.Ping(ctx).Err() }); err != nil {
				continue
			}
			if _, err = rdb.TxPipelined(ctx, func(p redis.Pipeliner) error { return p.Ping(ctx).Err() }); err == nil {
				return
			}
		}
		t.Fatal(err)
	}
	reset := func(t *testing.T) {
		t.Helper()
		if err := admin.Del(ctx, "a", "b").Err(); err != nil {
			t.Fatal(err)
		}
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			wantA, wantB := int64(1), int64(1)
			switch op.name {
			case "INCR":
				wantB = 0
			case "LPUSH":
				wantA = 0
			}
			// Measure the command: its request's and reply's bytes.
			reset(t)
			warm(t)
			p.arm(cutNone, 0)
			if err := op.run(); err != nil {
				t.Fatal(err)
			}
			reqLen, repLen := p.counts()
			// Partial: the commands of a pipeline before the cut ran,
			// those after did not (a pipeline is not atomic; MULTI/EXEC
			// is).
			type tally struct{ Cases, Ran, NotRan, Partial, Duplicated, Errors int }
			var got tally
			cut := func(side, at int) {
				reset(t)
				warm(t)
				p.arm(side, at)
				err := op.run()
				a, b := effects(t)
				got.Cases++
				if err != nil {
					got.Errors++
				}
				switch {
				case a > wantA || b > wantB:
					got.Duplicated++
					t.Errorf("cut at byte %d of the %s: a=%d b=%d (%v), want at most %d, %d", at, map[int]string{cutRequest: "request", cutReply: "reply"}[side], a, b, err, wantA, wantB)
				case a == wantA && b == wantB:
					got.Ran++
					if side == cutRequest {
						t.Errorf("cut at byte %d of %d of the request: the command ran", at, reqLen)
					}
				case a == 0 && b == 0:
					got.NotRan++
				case op.name == "pipeline" && side == cutRequest && a == 1 && b == 0:
					got.Partial++
				default:
					t.Errorf("cut at byte %d (side %d): a=%d b=%d: ran in part", at, side, a, b)
				}
				if side == cutReply && at == repLen && err != nil {
					t.Errorf("cut after the whole reply: %v, want the reply", err)
				}
			}
			for at := range reqLen {
				cut(cutRequest, at)
			}
			for at := 0; at <= repLen; at++ {
				cut(cutReply, at)
			}
			t.Logf("%s (request %d bytes, reply %d): %+v", op.name, reqLen, repLen, got)
			want := tally{Cases: reqLen + repLen + 1, Ran: repLen + 1, NotRan: reqLen, Errors: reqLen + repLen}
			if op.name == "pipeline" {
				want.Partial = 29 // the LPUSH's bytes: the INCR before them is whole
				want.NotRan -= want.Partial
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}
