// Package obstest records the events a retry.Observer receives, for this
// adapter's tests: it is a test kit, imported from _test.go files only.
//
// grpcretry, natsretry, pgretry and redisretry each keep this package, the
// same in each but for the import path of its test (the main module's
// internal packages are not theirs to import); internal/layout's test in
// the main module keeps the copies the same.
package obstest

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

// Recorder is a retry.Observer that keeps what it sees. It is safe for
// concurrent use.
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

// Seen returns the events seen so far and forgets them.
func (r *Recorder) Seen() []Seen {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.seen
	r.seen = nil
	return s
}
