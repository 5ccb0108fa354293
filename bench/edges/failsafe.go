package edges

import (
	"context"
	"errors"
	"iter"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/common"
	"github.com/failsafe-go/failsafe-go/policy"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
)

// failsafe-go computes a retry's delay in its retry executor
// (retrypolicy/retryexecutor.go, getDelay), which is unexported: the only
// way to see the delays is to run the executor. FailsafeDelays does that
// with an execution whose cancellation channel is already closed, so the
// executor's wait (a select between its timer and that channel) returns at
// once, and whose InitializeRetry reports no cancellation, so the retry
// loop goes on. The delays are read from the policy's OnRetryScheduled
// listener, which the executor calls with each delay it computed. Nothing
// of the executor itself is changed.

var errFailed = errors.New("failed")

// FailsafeDelays steps a failsafe-go retry policy built by b, with
// unlimited retries: each call of next runs one more failed attempt
// through the policy's own executor and returns the delay it scheduled
// after it. stop ends the run (the next attempt succeeds).
func FailsafeDelays(b retrypolicy.Builder[int]) (next func() time.Duration, stop func()) {
	seq := func(yield func(time.Duration) bool) {
		done := false
		p := b.WithMaxRetries(-1).OnRetryScheduled(func(e failsafe.ExecutionScheduledEvent[int]) {
			if !done && !yield(e.Delay) {
				done = true
			}
		}).Build()
		ex := p.ToExecutor(0).(policy.Executor[int])
		exec := newFakeExecution()
		ex.Apply(func(failsafe.Execution[int]) *common.PolicyResult[int] {
			exec.attempts++
			if done {
				return &common.PolicyResult[int]{Result: 1}
			}
			return &common.PolicyResult[int]{Error: errFailed}
		})(exec)
	}
	pull, stop := iter.Pull(iter.Seq[time.Duration](seq))
	return func() time.Duration {
		d, _ := pull()
		return d
	}, stop
}

// fakeExecution is a policy.ExecutionInternal that is cancelled from the
// start (Canceled's channel is closed) but never reports the cancellation
// (IsCanceled is false, InitializeRetry and RecordResult return nil).
type fakeExecution struct {
	attempts, retries int
	start             time.Time
	canceled          chan struct{}
}

var _ policy.ExecutionInternal[int] = (*fakeExecution)(nil)

func newFakeExecution() *fakeExecution {
	c := make(chan struct{})
	close(c)
	return &fakeExecution{start: time.Now(), canceled: c}
}

func (e *fakeExecution) Context() context.Context          { return context.Background() }
func (e *fakeExecution) Attempts() int                     { return e.attempts }
func (e *fakeExecution) Executions() int                   { return e.attempts }
func (e *fakeExecution) Retries() int                      { return e.retries }
func (e *fakeExecution) Hedges() int                       { return 0 }
func (e *fakeExecution) StartTime() time.Time              { return e.start }
func (e *fakeExecution) ElapsedTime() time.Duration        { return 0 }
func (e *fakeExecution) LastResult() int                   { return 0 }
func (e *fakeExecution) LastError() error                  { return errFailed }
func (e *fakeExecution) IsFirstAttempt() bool              { return e.attempts == 1 }
func (e *fakeExecution) IsRetry() bool                     { return e.attempts > 1 }
func (e *fakeExecution) IsHedge() bool                     { return false }
func (e *fakeExecution) AttemptStartTime() time.Time       { return e.start }
func (e *fakeExecution) ElapsedAttemptTime() time.Duration { return 0 }
func (e *fakeExecution) IsCanceled() bool                  { return false }
func (e *fakeExecution) Canceled() <-chan struct{}         { return e.canceled }
func (e *fakeExecution) Cancel(*common.PolicyResult[int])  {}
func (e *fakeExecution) DeferCancel() func()               { return func() {} }

func (e *fakeExecution) RecordResult(*common.PolicyResult[int]) *common.PolicyResult[int] {
	return nil
}

func (e *fakeExecution) InitializeRetry() *common.PolicyResult[int] {
	e.retries++
	return nil
}

func (e *fakeExecution) IsCanceledWithResult() (bool, *common.PolicyResult[int]) {
	return false, nil
}

func (e *fakeExecution) CopyWithResult(*common.PolicyResult[int]) failsafe.Execution[int] { return e }
func (e *fakeExecution) CopyForCancellable() failsafe.Execution[int]                      { return e }
func (e *fakeExecution) CopyForHedge() failsafe.Execution[int]                            { return e }
