package obstest_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/recur-go/recur/redisretry/internal/obstest"
	"github.com/recur-go/recur/retry"
)

func TestRecorder(t *testing.T) {
	var r obstest.Recorder
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() {
			r.Observe(context.Background(), retry.Event{Kind: retry.Attempted, Target: "db", Attempt: i + 1, Label: "timeout", Err: errors.New("slow")})
		})
	}
	wg.Wait()
	seen := r.Seen()
	slices.SortFunc(seen, func(a, b obstest.Seen) int { return a.Attempt - b.Attempt })
	want := []obstest.Seen{
		{Kind: retry.Attempted, Target: "db", Attempt: 1, Label: "timeout"},
		{Kind: retry.Attempted, Target: "db", Attempt: 2, Label: "timeout"},
		{Kind: retry.Attempted, Target: "db", Attempt: 3, Label: "timeout"},
	}
	if !slices.Equal(seen, want) {
		t.Errorf("Seen() = %v, want %v", seen, want)
	}
	if again := r.Seen(); len(again) != 0 {
		t.Errorf("Seen() after Seen() = %v, want nothing: it forgets", again)
	}
}
