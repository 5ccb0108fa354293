// Package retrytest helps test code that runs recur's runners: Recorder is
// a retry.Observer that keeps the events it sees, so a test can say which
// attempts, retries, give-ups and recoveries a call made, and with which
// targets and labels, without timing them.
//
//	var rec retrytest.Recorder
//	o := retry.Options{Observer: &rec}
//	_, _ = retry.Retry(ctx, o, policy, op)
//	// rec.Seen() lists the events, in order.
//
// The adapters' tests use it too; give its Recorder to a Config's
// Options.Observer.
package retrytest

import (
	"context"
	"sync"

	"github.com/recur-go/recur/retry"
)

// Seen is what a test compares of an event: its error and timing vary.
type Seen struct {
	Kind    retry.EventKind
	Target  string
	Attempt int
	Label   string
}

// Recorder is a retry.Observer that keeps what it sees. Its zero value is
// ready to use. It is safe for concurrent use.
type Recorder struct {
	mu   sync.Mutex
	seen []Seen
}

// Observe records e.
func (r *Recorder) Observe(_ context.Context, e retry.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, Seen{Kind: e.Kind, Target: e.Target, Attempt: e.Attempt, Label: e.Label})
}

// Seen returns the events seen so far, in the order they came, and forgets
// them.
func (r *Recorder) Seen() []Seen {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.seen
	r.seen = nil
	return s
}
