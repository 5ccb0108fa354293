package h3retry_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// certs is a self-signed certificate for 127.0.0.1, made once per test
// binary, and the pool that trusts it.
var certs = sync.OnceValues(func() (tls.Certificate, *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "h3retry test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		panic(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		panic(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
})

// serverTLS is the servers' TLS configuration.
func serverTLS() *tls.Config {
	cert, _ := certs()
	return &tls.Config{Certificates: []tls.Certificate{cert}}
}

// serverQUIC is the servers' QUIC configuration: a short idle timeout, so
// that a connection the client has given up on goes away soon.
func serverQUIC() *quic.Config { return &quic.Config{MaxIdleTimeout: 5 * time.Second} }

// listenUDP opens a UDP socket on a free loopback port, or on addr.
func listenUDP(t testing.TB, addr string) *net.UDPConn {
	t.Helper()
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		t.Fatal(err)
	}
	var c *net.UDPConn
	for range 50 { // a port just closed may take a moment to be free
		if c, err = net.ListenUDP("udp", ua); err == nil {
			return c
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal(err)
	return nil
}

// server is quic-go's http3.Server on a UDP socket of its own, with a
// handler that counts what it sees.
type server struct {
	srv  *http3.Server
	conn *net.UDPConn
	done chan struct{} // closed when Serve has returned
	url  string

	received atomic.Int64 // requests the handler was called for
}

// newServer starts an http3.Server on a free loopback port, or on addr,
// whose handler is h, called with the number of the request (from 1). It
// is closed at the end of the test, or by kill or close.
func newServer(t testing.TB, addr string, h func(n int64, w http.ResponseWriter, r *http.Request)) *server {
	t.Helper()
	s := &server{conn: listenUDP(t, addr), done: make(chan struct{})}
	s.url = "https://" + s.conn.LocalAddr().String()
	s.srv = &http3.Server{
		TLSConfig:  serverTLS(),
		QUICConfig: serverQUIC(),
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h(s.received.Add(1), w, r)
		}),
	}
	go func() {
		defer close(s.done)
		s.srv.Serve(s.conn)
	}()
	t.Cleanup(s.close)
	return s
}

// close closes the server as http3.Server.Close does: every connection
// is closed with H3_NO_ERROR, and the client is told so.
func (s *server) close() {
	s.srv.Close()
	s.conn.Close()
	<-s.done
}

// kill makes the server vanish as a process that is killed does: its
// UDP socket is closed first, so that no CONNECTION_CLOSE reaches the
// client, which finds out only when its idle timeout ends.
func (s *server) kill() {
	s.conn.Close()
	s.srv.Close()
	<-s.done
}

// client is an http3.Transport that trusts the servers' certificate and
// counts the QUIC connections it dials. It is closed at the end of the
// test.
type client struct {
	*http3.Transport
	dials atomic.Int64
}

// clientQUIC is the client's QUIC configuration: a short idle timeout,
// so that a server that vanished is found out in a test's time, with
// keep-alives well inside it, and room for a handshake on a busy machine.
func clientQUIC() *quic.Config {
	return &quic.Config{HandshakeIdleTimeout: 2 * time.Second, MaxIdleTimeout: time.Second, KeepAlivePeriod: 200 * time.Millisecond}
}

func newClient(t testing.TB) *client {
	t.Helper()
	_, pool := certs()
	c := &client{}
	udp := listenUDP(t, "")
	qt := &quic.Transport{Conn: udp}
	c.Transport = &http3.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool},
		QUICConfig:      clientQUIC(),
		Dial: func(ctx context.Context, addr string, tlsConf *tls.Config, conf *quic.Config) (*quic.Conn, error) {
			c.dials.Add(1)
			ua, err := net.ResolveUDPAddr("udp", addr)
			if err != nil {
				return nil, err
			}
			return qt.DialEarly(ctx, ua, tlsConf, conf)
		},
	}
	t.Cleanup(func() {
		c.Close()
		qt.Close()
		udp.Close()
	})
	return c
}

// reject resets the request's stream with H3_REQUEST_REJECTED, before
// reading any of it, as a server does with a request it will not process.
func reject(t testing.TB, w http.ResponseWriter) {
	str, err := w.(http3.HTTPStreamer).HTTPStream()
	if err != nil {
		t.Errorf("HTTPStream: %v", err)
		return
	}
	str.CancelRead(quic.StreamErrorCode(http3.ErrCodeRequestRejected))
	str.CancelWrite(quic.StreamErrorCode(http3.ErrCodeRequestRejected))
}

// ledger records what a handler processed: how many times each request
// ID (its body, or its X-Id header) ran.
type ledger struct {
	mu   sync.Mutex
	runs map[string]int
}

func (l *ledger) run(r *http.Request) string {
	id := r.Header.Get("X-Id")
	if id == "" {
		b, _ := io.ReadAll(r.Body)
		id = string(b)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.runs == nil {
		l.runs = map[string]int{}
	}
	l.runs[id]++
	return id
}

func (l *ledger) count(id string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.runs[id]
}

func (l *ledger) total() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, c := range l.runs {
		n += c
	}
	return n
}

// twice lists the IDs that ran more than once.
func (l *ledger) twice() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var ids []string
	for id, c := range l.runs {
		if c > 1 {
			ids = append(ids, id+" ×"+strconv.Itoa(c))
		}
	}
	return ids
}

// drainer is a QUIC listener whose first n connections are answered as a
// server in graceful shutdown answers them, frame by frame: SETTINGS and
// GOAWAY(0) on its control stream at once, and H3_REQUEST_REJECTED on
// every request stream, so that nothing sent on them is processed. Every
// later connection is served by srv, quic-go's http3.Server. It is the
// HTTP/3 form of a fleet in a rolling restart whose servers all drain.
type drainer struct {
	ln       *quic.EarlyListener
	srv      *http3.Server
	n        int64
	conns    atomic.Int64 // connections accepted
	rejected atomic.Int64 // request streams rejected
	wg       sync.WaitGroup
	url      string
}

func newDrainer(t testing.TB, n int64, h http.Handler) *drainer {
	t.Helper()
	udp := listenUDP(t, "")
	ln, err := quic.ListenEarly(udp, http3.ConfigureTLSConfig(serverTLS()), serverQUIC())
	if err != nil {
		t.Fatal(err)
	}
	d := &drainer{ln: ln, n: n, srv: &http3.Server{Handler: h}, url: "https://" + udp.LocalAddr().String()}
	d.wg.Go(func() {
		for {
			conn, err := ln.Accept(context.Background())
			if err != nil {
				return
			}
			if d.conns.Add(1) <= d.n {
				d.wg.Go(func() { d.drain(conn) })
				continue
			}
			d.wg.Go(func() { d.srv.ServeQUICConn(conn) })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		d.srv.Close()
		d.wg.Wait()
		udp.Close()
	})
	return d
}

// drain answers one connection as a draining server: GOAWAY(0), and every
// request stream rejected.
func (d *drainer) drain(conn *quic.Conn) {
	defer conn.CloseWithError(quic.ApplicationErrorCode(http3.ErrCodeNoError), "")
	ctrl, err := conn.OpenUniStream()
	if err != nil {
		return
	}
	// Stream type 0x00 (control); SETTINGS (type 0x04, empty); GOAWAY
	// (type 0x07, length 1, stream ID 0): RFC 9114, sections 6.2.1, 7.2.4
	// and 7.2.6. Every value fits in a one-byte varint.
	if _, err := ctrl.Write([]byte{0x00, 0x04, 0x00, 0x07, 0x01, 0x00}); err != nil {
		return
	}
	for {
		str, err := conn.AcceptStream(context.Background())
		if err != nil {
			return // the client closed the connection, as it should after GOAWAY
		}
		d.rejected.Add(1)
		str.CancelRead(quic.StreamErrorCode(http3.ErrCodeRequestRejected))
		str.CancelWrite(quic.StreamErrorCode(http3.ErrCodeRequestRejected))
	}
}

// crasher is a QUIC listener that closes every connection it accepts at
// once with H3_INTERNAL_ERROR, as a backend in a crash loop does: the
// handshake completes, and nothing is processed.
func newCrasher(t testing.TB) (url string, conns *atomic.Int64) {
	t.Helper()
	udp := listenUDP(t, "")
	ln, err := quic.ListenEarly(udp, http3.ConfigureTLSConfig(serverTLS()), serverQUIC())
	if err != nil {
		t.Fatal(err)
	}
	conns = new(atomic.Int64)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			conn, err := ln.Accept(context.Background())
			if err != nil {
				return
			}
			conns.Add(1)
			conn.CloseWithError(quic.ApplicationErrorCode(http3.ErrCodeInternalError), "crashed")
		}
	})
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
		udp.Close()
	})
	return "https://" + udp.LocalAddr().String(), conns
}

// closedPort returns a loopback UDP address on which nothing listens.
func closedPort(t testing.TB) string {
	t.Helper()
	c := listenUDP(t, "")
	addr := c.LocalAddr().String()
	c.Close()
	return "https://" + addr
}
