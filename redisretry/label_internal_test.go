package redisretry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/verdict"
	"github.com/redis/go-redis/v9"
)

// TestJudge: the judge keeps Classify's verdict and folds Code into the
// bounded labels that Config.Options lists.
func TestJudge(t *testing.T) {
	dial := func(err error) error { return &net.OpError{Op: "dial", Net: "tcp", Err: err} }
	read := func(err error) error { return &net.OpError{Op: "read", Net: "tcp", Err: err} }
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{redis.Nil, ""},
		{dial(&os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}), "dial"},
		{dial(context.DeadlineExceeded), "dial"},
		{dial(&os.SyscallError{Syscall: "connect", Err: syscall.EHOSTUNREACH}), "dial"},
		{read(&os.SyscallError{Syscall: "read", Err: syscall.ECONNRESET}), "connection"},
		{fmt.Errorf("pipeline: %w", io.ErrUnexpectedEOF), "connection"},
		{read(os.ErrDeadlineExceeded), "timeout"},
		{redis.ErrPoolTimeout, "pool_timeout"},
		{context.Canceled, "canceled"},
		{context.DeadlineExceeded, "canceled"},
		{redis.ErrClosed, "error"},
		{errors.New("redis: can't parse reply"), "error"},
	} {
		want := retry.Judgement{Verdict: Classify(tc.err), Reason: tc.want}
		if diff := cmp.Diff(want, judge(struct{}{}, tc.err)); diff != "" {
			t.Errorf("%v: (-want +got)\n%s", tc.err, diff)
		}
	}
	if got := judge(struct{}{}, nil).Verdict; got != verdict.Success {
		t.Errorf("judge of nil: %v; want Success", got)
	}
}
