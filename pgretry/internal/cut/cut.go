// Package cut is a TCP proxy for tests that cuts a PostgreSQL connection
// at a chosen point of a chosen message: before the client's message
// reaches the server, halfway through it, after the server has answered
// it but before the answer reaches the client, or after the answer. It
// reads both directions as PostgreSQL protocol messages, so that a point
// is a point in the protocol, not in whatever chunks the kernel delivers.
//
// A Proxy carries one rule at a time, armed with Arm and fired once, on
// the first message that matches it on any connection; a connection made
// after that (a pool's new connection, a retry) passes untouched.
package cut

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Point is where a rule cuts the connection.
type Point int

const (
	// Idle cuts every open connection at once, when Arm is called, as a
	// server or a middlebox that closes an idle connection does.
	Idle Point = iota
	// Before cuts when the client sends the matching message, forwarding
	// none of it.
	Before
	// Mid forwards the first half of the matching message, then cuts.
	Mid
	// AfterSend forwards the matching message and what follows it; when
	// the server then says it is ready for the next query (ReadyForQuery:
	// the statement ran, and a COMMIT committed), the proxy drops that
	// answer and cuts. The server has done the work; the client never
	// hears of it.
	AfterSend
	// AfterReply forwards the matching message and the server's answer,
	// up to its ReadyForQuery, then cuts.
	AfterReply
)

// String names the point, as the matrix's case names do.
func (p Point) String() string {
	switch p {
	case Idle:
		return "idle"
	case Before:
		return "before"
	case Mid:
		return "mid"
	case AfterSend:
		return "after-send"
	case AfterReply:
		return "after-reply"
	}
	return fmt.Sprintf("Point(%d)", int(p))
}

// Rule says where and how to cut.
type Rule struct {
	At Point
	// RST closes the client's side with a reset (SO_LINGER 0) instead of
	// a FIN.
	RST bool
	// Match picks the client message to cut at, by its type byte ('Q' a
	// simple query, 'E' an extended-protocol Execute, ...) and its body.
	// It is not used for Idle.
	Match func(typ byte, body []byte) bool
}

// Proxy relays TCP connections to a target.
type Proxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	rule  *Rule // armed, not yet fired
	fired bool
	conns map[*pair]struct{}
	dials int
	sent  atomic.Int64 // bytes relayed from the clients to the server
	wg    sync.WaitGroup
}

// Listen starts a proxy on a free port of 127.0.0.1 that relays to
// target (host:port).
func Listen(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, target: target, conns: map[*pair]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Port is the proxy's port.
func (p *Proxy) Port() int { return p.ln.Addr().(*net.TCPAddr).Port }

// Conns is how many client connections the proxy has accepted.
func (p *Proxy) Conns() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dials
}

// Sent is how many bytes the proxy has relayed from its clients to the
// server.
func (p *Proxy) Sent() int64 { return p.sent.Load() }

// Fired reports whether the armed rule has cut.
func (p *Proxy) Fired() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fired
}

// Arm sets the rule. For Idle it cuts every open connection before it
// returns.
func (p *Proxy) Arm(r Rule) {
	p.mu.Lock()
	p.fired = false
	if r.At != Idle {
		p.rule = &r
		p.mu.Unlock()
		return
	}
	p.rule = nil
	p.fired = true
	open := make([]*pair, 0, len(p.conns))
	for c := range p.conns {
		open = append(open, c)
	}
	p.mu.Unlock()
	for _, c := range open {
		c.cut(r.RST)
	}
}

// Close stops the proxy, closes every connection and waits for its
// goroutines.
func (p *Proxy) Close() error {
	err := p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.cut(false)
	}
	p.mu.Unlock()
	p.wg.Wait()
	return err
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.DialTimeout("tcp", p.target, 5*time.Second)
		if err != nil {
			c.Close()
			continue
		}
		pr := &pair{p: p, client: c.(*net.TCPConn), server: s}
		p.mu.Lock()
		p.conns[pr] = struct{}{}
		p.dials++
		p.mu.Unlock()
		p.wg.Add(2)
		go pr.up()
		go pr.down()
	}
}

// pair is one relayed connection.
type pair struct {
	p      *Proxy
	client *net.TCPConn
	server net.Conn

	mu sync.Mutex
	// watch is the rule this connection fired for AfterSend or
	// AfterReply: the next ReadyForQuery from the server ends it.
	watch *Rule
	// hold stops the client's messages from reaching the server: the
	// AfterReply answer is on its way, and the cut follows.
	hold bool
	done bool
}

// cut closes both sides; the client's with a reset if rst.
func (c *pair) cut(rst bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return
	}
	c.done = true
	if rst {
		c.client.SetLinger(0)
	}
	c.client.Close()
	c.server.Close()
}

func (c *pair) forget() {
	c.p.mu.Lock()
	delete(c.p.conns, c)
	c.p.mu.Unlock()
}

// take returns the armed rule if msg matches it, and disarms it.
func (c *pair) take(typ byte, body []byte) *Rule {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	r := c.p.rule
	if r == nil || r.Match == nil || !r.Match(typ, body) {
		return nil
	}
	c.p.rule = nil
	c.p.fired = true
	return r
}

// up relays the client's messages to the server.
func (c *pair) up() {
	defer c.p.wg.Done()
	defer c.forget()
	defer c.cut(false)
	in := bufio.NewReader(c.client)
	first := true // the startup message has no type byte
	for {
		var typ byte
		if !first {
			t, err := in.ReadByte()
			if err != nil {
				return
			}
			typ = t
		}
		var n [4]byte
		if _, err := io.ReadFull(in, n[:]); err != nil {
			return
		}
		size := int(binary.BigEndian.Uint32(n[:]))
		if size < 4 || size > 64<<20 {
			return
		}
		body := make([]byte, size-4)
		if _, err := io.ReadFull(in, body); err != nil {
			return
		}
		msg := make([]byte, 0, 5+len(body))
		if !first {
			msg = append(msg, typ)
		}
		msg = append(append(msg, n[:]...), body...)
		var r *Rule
		if !first {
			r = c.take(typ, body)
		}
		first = false
		if r != nil {
			switch r.At {
			case Before:
				c.cut(r.RST)
				return
			case Mid:
				c.server.Write(msg[:len(msg)/2])
				// Let the half reach the server before the cut.
				time.Sleep(5 * time.Millisecond)
				c.cut(r.RST)
				return
			case AfterSend, AfterReply:
				c.mu.Lock()
				c.watch = r
				c.mu.Unlock()
			}
		}
		c.mu.Lock()
		hold := c.hold
		c.mu.Unlock()
		if hold {
			continue // the cut is coming; nothing more reaches the server
		}
		w, err := c.server.Write(msg)
		c.p.sent.Add(int64(w))
		if err != nil {
			return
		}
	}
}

// down relays the server's messages to the client, and ends a watch.
func (c *pair) down() {
	defer c.p.wg.Done()
	defer c.cut(false)
	in := bufio.NewReader(c.server)
	for {
		var hdr [5]byte
		if _, err := io.ReadFull(in, hdr[:]); err != nil {
			return
		}
		size := int(binary.BigEndian.Uint32(hdr[1:]))
		if size < 4 || size > 64<<20 {
			return
		}
		msg := make([]byte, 5+size-4)
		copy(msg, hdr[:])
		if _, err := io.ReadFull(in, msg[5:]); err != nil {
			return
		}
		c.mu.Lock()
		w := c.watch
		c.mu.Unlock()
		if w != nil && w.At == AfterSend {
			if hdr[0] == 'Z' {
				c.cut(w.RST)
				return
			}
			continue // dropped: the client never hears the answer
		}
		if w != nil && hdr[0] == 'Z' {
			c.mu.Lock()
			c.hold = true
			c.mu.Unlock()
		}
		if _, err := c.client.Write(msg); err != nil {
			return
		}
		if w != nil && hdr[0] == 'Z' {
			// Let the client read the answer before the cut: a reset
			// would race it.
			time.Sleep(10 * time.Millisecond)
			c.cut(w.RST)
			return
		}
	}
}
