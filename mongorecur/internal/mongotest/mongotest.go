// Package mongotest runs a throwaway MongoDB wire server for tests:
// FerretDB v1, embedded in the test process, over SQLite in a temporary
// directory, listening on a free port of 127.0.0.1. Nothing outside the
// directory is touched; Close stops the server and removes it.
//
// Stop closes the listener and every connection, as a crash would to the
// clients (it takes 3 s: FerretDB lets open connections drain that long);
// Restart listens again on the same port, over the same data.
//
// When the server does not start, Start (and Unavailable) skips the test
// with the reason — or fails it when the environment variable CI is
// "true", so that CI cannot pass by skipping.
package mongotest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
)

// Server is a running FerretDB owned by one test (or one test binary).
type Server struct {
	dir  string // the SQLite databases
	addr string // 127.0.0.1:port, kept across Restart

	mu     sync.Mutex
	cancel context.CancelFunc // nil while stopped
	done   chan struct{}      // closed when Run returns
}

// Start is New for one test: it closes the server when tb ends, and calls
// Unavailable if the server cannot start.
func Start(tb testing.TB) *Server {
	tb.Helper()
	s, err := New()
	if err != nil {
		Unavailable(tb, err)
		return nil
	}
	tb.Cleanup(s.Close)
	return s
}

// Unavailable ends tb for a server that could not start: it skips with
// the reason, or fails when CI is "true".
func Unavailable(tb testing.TB, err error) {
	tb.Helper()
	if os.Getenv("CI") == "true" {
		tb.Fatalf("mongotest: cannot start FerretDB (CI=true, so this fails): %v", err)
		return
	}
	tb.Skipf("mongotest: cannot start FerretDB, skipping: %v", err)
}

// New makes a temporary directory and starts FerretDB on it, on a free
// port of 127.0.0.1. Close stops it and removes the directory.
func New() (*Server, error) {
	dir, err := os.MkdirTemp("", "mongotest-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, addr: "127.0.0.1:0"}
	if err := s.run(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

// run starts FerretDB on s.addr and waits until it accepts connections.
func (s *Server) run() error {
	f, err := ferretdb.New(&ferretdb.Config{
		Listener: ferretdb.ListenerConfig{TCP: s.addr},
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
		Handler:  "sqlite",
		// The directory must end with a slash.
		SQLiteURL: "file:" + s.dir + "/",
	})
	if err != nil {
		return fmt.Errorf("ferretdb.New: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.Run(ctx)
	}()
	// MongoDBURI reads the listener's address, known once New returned.
	host := f.MongoDBURI()[len("mongodb://"):]
	host = host[:len(host)-1] // the trailing "/"
	if err := waitDial(host); err != nil {
		cancel()
		<-done
		return err
	}
	s.mu.Lock()
	s.addr, s.cancel, s.done = host, cancel, done
	s.mu.Unlock()
	return nil
}

// waitDial waits until addr accepts a TCP connection.
func waitDial(addr string) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("FerretDB does not accept connections on %s: %w", addr, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Addr is the server's host:port on 127.0.0.1; it stays the same across
// Stop and Restart.
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// URI is a connection string for the server with the given options
// appended ("key=value&..."), such as "serverSelectionTimeoutMS=500".
// It connects directly, without discovering a replica set.
func (s *Server) URI(options string) string {
	u := "mongodb://" + s.Addr() + "/?directConnection=true"
	if options != "" {
		u += "&" + options
	}
	return u
}

// Stop closes the listener at once and every client connection after
// FerretDB's drain of 3 s (its connections outlive the listener by that
// much), and returns once all are closed: from then on, connections are
// refused and none is open. Stopping a stopped server does nothing.
func (s *Server) Stop() {
	s.mu.Lock()
	cancel, done := s.cancel, s.done
	s.cancel, s.done = nil, nil
	s.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	<-done
}

// Restart starts a stopped server again on the same port, over the same
// data. Restarting a running server is an error.
func (s *Server) Restart() error {
	s.mu.Lock()
	running := s.cancel != nil
	s.mu.Unlock()
	if running {
		return errors.New("mongotest: Restart of a running server")
	}
	return s.run()
}

// Close stops the server and removes its directory.
func (s *Server) Close() {
	s.Stop()
	os.RemoveAll(s.dir)
}
