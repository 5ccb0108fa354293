package redisretry_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

const redisServer = "/usr/bin/redis-server"

// server is a redis-server process on a free port of 127.0.0.1, with its
// files in a temporary directory. It is stopped when the test ends.
type server struct {
	t    testing.TB
	addr string
	port int
	dir  string
	args []string // more redis-server arguments
	cmd  *exec.Cmd
}

// unavailable fails the test under CI=true, where the server must run,
// and skips it elsewhere.
func unavailable(t testing.TB, err error) {
	t.Helper()
	msg := fmt.Sprintf("redis-server unavailable (apt-get install -y redis-server): %v", err)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// startServer starts redis-server on a free port, with args added to its
// command line.
func startServer(t testing.TB, args ...string) *server {
	t.Helper()
	if _, err := os.Stat(redisServer); err != nil {
		unavailable(t, err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s := &server{t: t, port: port, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), dir: t.TempDir(), args: args}
	if err := s.start(); err != nil {
		unavailable(t, err)
	}
	t.Cleanup(s.kill)
	return s
}

// start runs the server and waits until it answers PING, for at most 5 s.
func (s *server) start() error {
	args := []string{"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--dir", s.dir,
		"--save", "", "--appendonly", "no", "--enable-debug-command", "yes"}
	s.cmd = exec.Command(redisServer, append(args, s.args...)...)
	if err := s.cmd.Start(); err != nil {
		return err
	}
	c := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	defer c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := c.Ping(context.Background()).Err()
		if _, replied := errors.AsType[redis.Error](err); err == nil || replied {
			return nil // it answers, if only with an error such as MASTERDOWN
		}
		if time.Now().After(deadline) {
			s.kill()
			return fmt.Errorf("no PONG from %s within 5s: %w", s.addr, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// kill stops the server with SIGKILL and waits for it.
func (s *server) kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// restart starts the server again on the same port.
func (s *server) restart() {
	s.t.Helper()
	if err := s.start(); err != nil {
		s.t.Fatal(err)
	}
}

// admin returns a plain client (no hook, no retries) for setup and checks.
func (s *server) admin(t testing.TB) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	return c
}
