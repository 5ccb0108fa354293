// Package redistest starts a real redis-server for tests: Debian's
// /usr/bin/redis-server on a free port of 127.0.0.1, with its files in a
// temporary directory, stopped when the test ends. Under CI=true a
// server that cannot start fails the test; elsewhere it skips it, naming
// the package to install.
package redistest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Binary is the redis-server the tests run.
const Binary = "/usr/bin/redis-server"

// Server is a redis-server process on a free port of 127.0.0.1, with its
// files in a temporary directory. It is stopped when the test ends.
type Server struct {
	// Addr is the server's host:port.
	Addr string
	t    testing.TB
	port int
	dir  string
	args []string // more redis-server arguments
	cmd  *exec.Cmd
}

// Unavailable fails the test under CI=true, where the server must run,
// and skips it elsewhere.
func Unavailable(t testing.TB, err error) {
	t.Helper()
	msg := fmt.Sprintf("redis-server unavailable (apt-get install -y redis-server): %v", err)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// Start starts redis-server on a free port, with args added to its
// command line, and stops it when the test ends.
func Start(t testing.TB, args ...string) *Server {
	t.Helper()
	if _, err := os.Stat(Binary); err != nil {
		Unavailable(t, err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s := &Server{t: t, port: port, Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), dir: t.TempDir(), args: args}
	if err := s.start(); err != nil {
		Unavailable(t, err)
	}
	t.Cleanup(s.Kill)
	return s
}

// start runs the server and waits until it answers PING, for at most 5 s.
func (s *Server) start() error {
	args := []string{"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--dir", s.dir,
		"--save", "", "--appendonly", "no", "--enable-debug-command", "yes"}
	s.cmd = exec.Command(Binary, append(args, s.args...)...)
	if err := s.cmd.Start(); err != nil {
		return err
	}
	c := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	defer c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := c.Ping(context.Background()).Err()
		if _, replied := errors.AsType[redis.Error](err); err == nil || replied {
			return nil // it answers, if only with an error such as MASTERDOWN
		}
		if time.Now().After(deadline) {
			s.Kill()
			return fmt.Errorf("no PONG from %s within 5s: %w", s.Addr, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Kill stops the server with SIGKILL and waits for it.
func (s *Server) Kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Restart starts the server again on the same port.
func (s *Server) Restart() {
	s.t.Helper()
	if err := s.start(); err != nil {
		s.t.Fatal(err)
	}
}

// Admin returns a plain client (no hook, no retries) for setup and
// checks, closed when the test ends.
func (s *Server) Admin(t testing.TB) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	return c
}

// Pause stops the server with SIGSTOP: it keeps its port and its
// connections, and the kernel still accepts new ones, but it answers
// nothing until Resume. The test's cleanup resumes it before killing it.
func (s *Server) Pause() {
	s.t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		s.t.Fatal(err)
	}
}

// Resume continues a server that Pause stopped.
func (s *Server) Resume() {
	s.t.Helper()
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	if err := s.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		s.t.Fatal(err)
	}
}

// PID returns the server's process id.
func (s *Server) PID() int { return s.cmd.Process.Pid }
