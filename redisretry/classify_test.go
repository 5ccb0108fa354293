package redisretry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
	"github.com/redis/go-redis/v9"

	"github.com/recur-go/recur/redisretry"
)

// TestClassifyClientSide: the rows a server does not send, wrapped the
// way go-redis and net wrap them.
func TestClassifyClientSide(t *testing.T) {
	type row struct {
		Code    string
		Verdict verdict.Verdict
	}
	dial := func(err error) error { return &net.OpError{Op: "dial", Net: "tcp", Err: err} }
	read := func(err error) error { return &net.OpError{Op: "read", Net: "tcp", Err: err} }
	open, _ := breaker.New(breaker.Config{})
	open.ForceOpen()
	_, openErr := open.Allow()
	for _, tc := range []struct {
		err  error
		want row
	}{
		{nil, row{"ok", verdict.Success}},
		{redis.Nil, row{"nil", verdict.Success}},
		{dial(&os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}), row{"refused", verdict.Transient}},
		{read(&os.SyscallError{Syscall: "read", Err: syscall.ECONNRESET}), row{"reset", verdict.Transient}},
		{io.EOF, row{"closed", verdict.Transient}},
		{fmt.Errorf("pipeline: %w", io.ErrUnexpectedEOF), row{"closed", verdict.Transient}},
		{read(os.ErrDeadlineExceeded), row{"timeout", verdict.Transient}},
		{dial(context.DeadlineExceeded), row{"timeout", verdict.Transient}},
		{redis.ErrPoolTimeout, row{"pool_timeout", verdict.Neutral}},
		{context.DeadlineExceeded, row{"canceled", verdict.Neutral}},
		{context.Canceled, row{"canceled", verdict.Neutral}},
		{redis.ErrClosed, row{"client-closed", verdict.Failure}},
		{openErr, row{"open", verdict.Neutral}},
		{errors.New("redis: can't parse reply"), row{"other", verdict.Failure}},
	} {
		got := row{redisretry.Code(tc.err), redisretry.Classify(tc.err)}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%v: (-want +got)\n%s", tc.err, diff)
		}
	}
}

// TestCodeAllocs: Code is cheap enough to label every command.
func TestCodeAllocs(t *testing.T) {
	err := fmt.Errorf("x: %w", io.EOF)
	if n := testing.AllocsPerRun(100, func() { _ = redisretry.Code(err) }); n != 0 {
		t.Errorf("Code allocates %v times", n)
	}
}

// TestConfig: what NewClient and Install refuse, and the error that
// says so.
func TestConfig(t *testing.T) {
	opt := &redis.Options{Addr: "127.0.0.1:1"}
	bucket, err := budget.NewTokenBucket(budget.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	budgets, err := budget.NewRegistry(budget.DefaultConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := breaker.New(breaker.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		c    redisretry.Config
		want string // in the error
	}{
		"timeout":          {redisretry.Config{Options: retry.Options{AttemptTimeout: -1}}, "AttemptTimeout"},
		"pushback":         {redisretry.Config{Options: retry.Options{MaxPushback: -1}}, "MaxPushback"},
		"target":           {redisretry.Config{Options: retry.Options{Target: "x"}}, "Target"},
		"options-breaker":  {redisretry.Config{Options: retry.Options{Breaker: b}}, "Breaker"},
		"options-budget":   {redisretry.Config{Options: retry.Options{Budget: bucket}}, "Budget"},
		"policy":           {redisretry.Config{Policy: schedule.Times{N: 0}}, "Policy"},
		"breaker-and-none": {redisretry.Config{Breaker: breakers(t, breaker.Config{}), NoBreaker: true}, "NoBreaker"},
		"unthrottled":      {redisretry.Config{Budget: budgets, Options: retry.Options{Unthrottled: true}}, "Unthrottled"},
	} {
		rdb, err := redisretry.NewClient(opt, tc.c)
		if err == nil {
			rdb.Close()
			t.Errorf("%s: NewClient accepted %+v", name, tc.c)
			continue
		}
		if !strings.HasPrefix(err.Error(), "redisretry: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: NewClient: %v, want a redisretry error naming %s", name, err, tc.want)
		}
	}
	if _, err := redisretry.NewClient(nil, redisretry.Config{}); err == nil {
		t.Error("NewClient accepted nil options")
	}
	retrying := redis.NewClient(opt) // MaxRetries 0 means go-redis's 3
	defer retrying.Close()
	if _, err := redisretry.Install(retrying, redisretry.Config{}); err == nil {
		t.Error("Install accepted a client that retries on its own")
	}
	deaf := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1}) // ContextTimeoutEnabled false
	defer deaf.Close()
	if _, err := redisretry.Install(deaf, redisretry.Config{}); err == nil || !strings.Contains(err.Error(), "ContextTimeoutEnabled") {
		t.Errorf("Install of a client that ignores deadlines: %v, want an error naming ContextTimeoutEnabled", err)
	}
	rdb, err := redisretry.NewClient(opt, redisretry.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	if got := rdb.Options().MaxRetries; got != 0 {
		t.Errorf("NewClient's client has MaxRetries %d, want 0 (go-redis's -1, normalised)", got)
	}
	if !rdb.Options().ContextTimeoutEnabled {
		t.Errorf("NewClient's client ignores its callers' deadlines (ContextTimeoutEnabled false)")
	}
	if opt.MaxRetries != 0 || opt.ContextTimeoutEnabled {
		t.Errorf("NewClient changed the caller's options")
	}
}

// TestBreakerRegistry: a client's breaker is its registry's breaker for
// the client's address, named by it; clients given one registry share the
// breaker of the address they share, and clients given none each have
// their own; NoBreaker has none.
func TestBreakerRegistry(t *testing.T) {
	const addr = "127.0.0.1:1"
	install := func(c redisretry.Config) *redisretry.Hook {
		t.Helper()
		rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, ContextTimeoutEnabled: true})
		t.Cleanup(func() { rdb.Close() })
		h, err := redisretry.Install(rdb, c)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	reg := breakers(t, breaker.Config{ConsecutiveFailures: 2})
	a, b := install(redisretry.Config{Breaker: reg}), install(redisretry.Config{Breaker: reg})
	if a.Breaker() != reg.Get(addr) || b.Breaker() != reg.Get(addr) {
		t.Error("a client given a registry does not use its breaker for the client's address")
	}
	own1, own2 := install(redisretry.Config{}), install(redisretry.Config{})
	if own1.Breaker() == nil || own1.Breaker() == own2.Breaker() {
		t.Error("two clients without a registry do not have a breaker each")
	}
	if diff := cmp.Diff([]string{addr, addr}, []string{a.Breaker().Name(), own1.Breaker().Name()}); diff != "" {
		t.Errorf("breaker names (-want +got)\n%s", diff)
	}
	if h := install(redisretry.Config{NoBreaker: true}); h.Breaker() != nil {
		t.Error("NoBreaker left a breaker")
	}
}
