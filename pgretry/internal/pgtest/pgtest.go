// Package pgtest starts a throwaway PostgreSQL server for tests: Debian's
// postgresql package, in a temporary directory, on a free port of
// 127.0.0.1, with its unix socket in that directory and fsync off. Nothing
// outside the directory is touched; the server is stopped when the test
// ends.
//
// When the package is not installed, or the server does not start, Start
// (and Unavailable) skips the test with the command that installs it — or fails it when the
// environment variable CI is "true", so that CI cannot pass by skipping.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Install is the command that installs the server on Debian and Ubuntu.
const Install = "apt-get install -y postgresql"

// cmdTimeout bounds every command the harness runs.
const cmdTimeout = 60 * time.Second

// Server is a running PostgreSQL server owned by one test.
type Server struct {
	bin  string // the directory of initdb, pg_ctl, postgres
	dir  string // the temporary directory: data/, the socket, the log
	data string
	port int
	// runAs is the user that owns the data directory when the tests run
	// as root (PostgreSQL refuses to run as root); empty otherwise. uid
	// and gid are its ids.
	runAs    string
	uid, gid int
}

// Start is New for one test: it stops and removes the server when tb
// ends, and calls Unavailable if the server cannot start.
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
// the command that installs the package, or fails when CI is "true".
func Unavailable(tb testing.TB, err error) {
	tb.Helper()
	if os.Getenv("CI") == "true" {
		tb.Fatalf("pgtest: cannot start PostgreSQL (CI=true, so this fails): %v", err)
		return
	}
	tb.Skipf("pgtest: cannot start PostgreSQL, skipping (install it with: %s): %v", Install, err)
}

// New initializes a database cluster in a new temporary directory and
// starts a server on it. Close stops it and removes the directory.
func New() (*Server, error) { return start() }

// Close stops the server at once and removes its directory.
func (s *Server) Close() {
	s.Stop()
	os.RemoveAll(s.dir)
}

// DSN is a connection string to the server's postgres database over TCP,
// as the superuser postgres, with extra appended ("key=value ...").
func (s *Server) DSN(extra string) string {
	dsn := fmt.Sprintf("host=127.0.0.1 port=%d user=postgres dbname=postgres sslmode=disable connect_timeout=5", s.port)
	if extra != "" {
		dsn += " " + extra
	}
	return dsn
}

// Stop stops the server at once (pg_ctl stop -m immediate), as a crash or
// a pulled cable would: the clients' connections are cut. Stopping a
// stopped server does nothing.
func (s *Server) Stop() error {
	if _, err := os.Stat(filepath.Join(s.data, "postmaster.pid")); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return s.run("pg_ctl", "stop", "-D", s.data, "-m", "immediate", "-w", "-t", "30")
}

// Restart starts a stopped server again on the same port.
func (s *Server) Restart() error {
	return s.run("pg_ctl", "start", "-D", s.data, "-w", "-t", "30",
		"-l", filepath.Join(s.dir, "postgres.log"), "-o", s.options())
}

// StartStandby starts a stopped server as a standby with hot_standby
// off and returns without waiting for it. With no primary to stream from
// and no archive, it stays in recovery, and refuses every connection with
// SQLSTATE 57P03 ("the database system is starting up", then "the
// database system is not accepting connections") until Promote.
func (s *Server) StartStandby() error {
	signal := filepath.Join(s.data, "standby.signal")
	if err := os.WriteFile(signal, nil, 0o600); err != nil {
		return err
	}
	if s.runAs != "" {
		if err := os.Chown(signal, s.uid, s.gid); err != nil {
			return err
		}
	}
	return s.run("pg_ctl", "start", "-D", s.data, "-W",
		"-l", filepath.Join(s.dir, "postgres.log"), "-o", s.options()+" -c hot_standby=off")
}

// Promote ends a standby's recovery (pg_ctl promote) and waits until the
// server accepts connections.
func (s *Server) Promote() error {
	return s.run("pg_ctl", "promote", "-D", s.data, "-w", "-t", "30")
}

// Freeze stops the server's processes with SIGSTOP, the postmaster and
// every backend, as a server that hangs (swapping, a stalled disk, a VM
// paused) does: connections stay open and new ones are accepted by the
// kernel, but nothing answers. thaw sends SIGCONT to them again.
func (s *Server) Freeze() (thaw func() error, err error) {
	b, err := os.ReadFile(filepath.Join(s.data, "postmaster.pid"))
	if err != nil {
		return nil, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pm, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		return nil, fmt.Errorf("postmaster.pid: %w", err)
	}
	// The postmaster first, so that it forks no backend meanwhile.
	if err := syscall.Kill(pm, syscall.SIGSTOP); err != nil {
		return nil, err
	}
	pids := append([]int{pm}, children(pm)...)
	for _, pid := range pids[1:] {
		syscall.Kill(pid, syscall.SIGSTOP)
	}
	return func() error {
		var first error
		for i := len(pids) - 1; i >= 0; i-- {
			if err := syscall.Kill(pids[i], syscall.SIGCONT); err != nil && first == nil && i == 0 {
				first = err
			}
		}
		return first
	}, nil
}

// children returns the ids of the processes whose parent is pid.
func children(pid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var kids []int
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(b[i+1:]))
		if len(fields) < 2 {
			continue
		}
		if ppid, _ := strconv.Atoi(fields[1]); ppid == pid {
			if k, err := strconv.Atoi(filepath.Base(filepath.Dir(f))); err == nil {
				kids = append(kids, k)
			}
		}
	}
	return kids
}

// Log returns the server's log, for a failing test's message.
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "postgres.log"))
	return string(b)
}

func (s *Server) options() string {
	return "-p " + strconv.Itoa(s.port) +
		" -c listen_addresses=127.0.0.1 -k " + s.dir +
		" -c fsync=off -c synchronous_commit=off -c full_page_writes=off" +
		" -c max_connections=50 -c shared_buffers=16MB -c deadlock_timeout=50ms"
}

// start finds the binaries, initializes the cluster and starts the server.
func start() (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, dir: dir, data: filepath.Join(dir, "data")}
	if err := s.init(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// A free port can be taken between the probe and the server's bind:
	// try a few.
	for i := 0; ; i++ {
		if s.port, err = freePort(); err != nil {
			break
		}
		if err = s.Restart(); err == nil || i == 2 {
			break
		}
	}
	if err != nil {
		log := s.Log()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%w\n%s", err, log)
	}
	return s, nil
}

// binDir returns the newest /usr/lib/postgresql/*/bin that has initdb.
func binDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", errors.New("no /usr/lib/postgresql/*/bin/initdb")
}

func version(bin string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(bin)))
	return n
}

// init runs initdb, as an unprivileged user when the tests run as root.
func (s *Server) init() error {
	if os.Geteuid() == 0 {
		u, err := user.Lookup("nobody")
		if err != nil {
			return fmt.Errorf("running as root and no user nobody to run PostgreSQL as: %w", err)
		}
		s.uid, _ = strconv.Atoi(u.Uid)
		s.gid, _ = strconv.Atoi(u.Gid)
		s.runAs = "nobody"
		// nobody must reach the directory (MkdirTemp makes it 0700) and
		// own the data directory and the socket's directory.
		if err := os.Chmod(s.dir, 0o755); err != nil {
			return err
		}
		if err := os.Chown(s.dir, s.uid, s.gid); err != nil {
			return err
		}
	}
	return s.run("initdb", "-D", s.data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions")
}

// run runs one of the server's programs, as runAs if set.
func (s *Server) run(prog string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
	defer cancel()
	path := filepath.Join(s.bin, prog)
	var cmd *exec.Cmd
	if s.runAs != "" {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", s.runAs, "--", path}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, path, args...)
	}
	cmd.Dir = s.dir
	// pg_ctl start leaves the server running with our pipes unless its
	// output goes elsewhere: -l does that; WaitDelay bounds the rest.
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %v: %w\n%s", prog, args, err, out)
	}
	return nil
}

// freePort returns a TCP port of 127.0.0.1 that nothing listens on.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
