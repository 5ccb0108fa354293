package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"
)

func TestRun(t *testing.T) {
	addr := startServer(t)
	var out strings.Builder
	if err := run(&out, addr); err != nil {
		t.Fatal(err)
	}
	want := `-- BLPOP marked idempotent, its connection killed while it waits
client: attempt 1 failed (closed); retrying
client: got "job 1"
-- BLPOP not marked, its connection killed while it waits
client: closed (transient)
-- a missing key is an answer, not a failure
client: nil (success), errors.Is(err, redis.Nil) true
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got)\n%s", diff)
	}
}

// startServer runs redis-server on a free port until the test ends.
func startServer(t *testing.T) string {
	if _, err := os.Stat("/usr/bin/redis-server"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skipf("redis-server unavailable (apt-get install -y redis-server): %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("/usr/bin/redis-server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--dir", t.TempDir(), "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	for range 500 {
		if c.Ping(context.Background()).Err() == nil {
			return addr
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("redis-server did not answer within 5s")
	return ""
}
