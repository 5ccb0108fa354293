package httpretry_test

import (
	"bufio"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// server is an httptest server that counts what it sees: requests (the
// attempts a client made) and connections opened and closed.
type server struct {
	*httptest.Server
	requests atomic.Int64
	opened   atomic.Int64
	closed   atomic.Int64
}

// newServer starts a server whose handler h gets the request's number
// (from 1) beside the usual arguments. It is closed when the test ends.
func newServer(t *testing.T, h func(n int64, w http.ResponseWriter, r *http.Request)) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h(s.requests.Add(1), w, r)
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			s.opened.Add(1)
		case http.StateClosed, http.StateHijacked:
			s.closed.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// status is a handler that always answers code, with a short body and the
// given headers.
func status(code int, header ...string) func(int64, http.ResponseWriter, *http.Request) {
	return func(_ int64, w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(code)
		io.WriteString(w, http.StatusText(code))
	}
}

// newBase returns a fresh net/http transport whose idle connections are
// closed when the test ends, so that goleak sees no read or write loop.
func newBase(t *testing.T) *http.Transport {
	t.Helper()
	b := &http.Transport{}
	t.Cleanup(b.CloseIdleConnections)
	return b
}

// rawServer is a TCP listener whose connections are handled by a function
// of the test's choosing, for the misbehaviours net/http's server will
// not produce: resets, hangs, truncated answers. It counts connections;
// each connection is one attempt.
type rawServer struct {
	ln    net.Listener
	conns atomic.Int64
	done  chan struct{} // closed when the test ends: hanging handlers return
	wg    sync.WaitGroup

	mu   sync.Mutex
	open map[net.Conn]bool // closed when the test ends: blocked reads return
}

// newRaw starts a rawServer that runs handle on each accepted connection
// with its number (from 1). Every connection is closed when handle
// returns; handle may block on done.
func newRaw(t *testing.T, handle func(n int64, c *net.TCPConn, done <-chan struct{})) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln, done: make(chan struct{}), open: make(map[net.Conn]bool)}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n := s.conns.Add(1)
			s.mu.Lock()
			s.open[c] = true
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer func() {
					s.mu.Lock()
					delete(s.open, c)
					s.mu.Unlock()
					c.Close()
				}()
				handle(n, c.(*net.TCPConn), s.done)
			}()
		}
	}()
	t.Cleanup(func() {
		close(s.done)
		ln.Close()
		s.mu.Lock()
		for c := range s.open {
			c.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
	return s
}

// URL is the server's base URL.
func (s *rawServer) URL() string { return "http://" + s.ln.Addr().String() }

// readRequest reads one request, body included, from c.
func readRequest(c net.Conn) (*http.Request, error) {
	req, err := http.ReadRequest(bufio.NewReader(c))
	if err != nil {
		return nil, err
	}
	_, err = io.Copy(io.Discard, req.Body)
	return req, err
}

// reset reads the request, then resets the connection: a close with
// SO_LINGER 0 sends RST instead of FIN.
func reset(_ int64, c *net.TCPConn, _ <-chan struct{}) {
	readRequest(c)
	c.SetLinger(0)
}

// hangUp reads the request and closes the connection without an answer.
func hangUp(_ int64, c *net.TCPConn, _ <-chan struct{}) { readRequest(c) }

// hang reads the request and never answers, until the test ends.
func hang(_ int64, c *net.TCPConn, done <-chan struct{}) {
	readRequest(c)
	<-done
}

// truncate answers 200 with headers that promise 100 bytes, sends 7 and
// closes: the response is already the caller's when the body breaks.
func truncate(_ int64, c *net.TCPConn, _ <-chan struct{}) {
	readRequest(c)
	io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial")
}

// closedPort returns an address on which nothing listens: connecting to
// it is refused.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// waitClosed waits until the server has seen every connection it opened
// closed: the client leaked none. The wait is bounded; the test fails if
// it runs out.
func waitClosed(t *testing.T, s *server) {
	t.Helper()
	for range 500 {
		if s.closed.Load() == s.opened.Load() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("server saw %d connections opened and %d closed", s.opened.Load(), s.closed.Load())
}

// newTLSServer starts a TLS server with httptest's own certificate, which
// a client that was not given it does not trust.
func newTLSServer(t *testing.T) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			s.opened.Add(1)
		case http.StateClosed, http.StateHijacked:
			s.closed.Add(1)
		}
	}
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // the failed handshakes
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}
