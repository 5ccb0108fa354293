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

// TestConfig: what NewClient and Install refuse.
func TestConfig(t *testing.T) {
	opt := &redis.Options{Addr: "127.0.0.1:1"}
	bucket, err := budget.NewTokenBucket(budget.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]redisretry.Config{
		"timeout":        {Retry: redisretry.RetryOptions{AttemptTimeout: -1}},
		"both":           {Policy: "times(3)", Schedule: parseTimes()},
		"policy":         {Policy: "times("},
		"breaker-config": {Breaker: breaker.Config{FailureRate: 200}},
		"unthrottled":    {Retry: redisretry.RetryOptions{Unthrottled: true, Budget: bucket}},
	} {
		if rdb, err := redisretry.NewClient(opt, c); err == nil {
			rdb.Close()
			t.Errorf("%s: NewClient accepted %+v", name, c)
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

func parseTimes() schedule.Schedule { return schedule.Times{N: 3} }
