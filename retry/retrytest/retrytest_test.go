package retrytest_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/retry/retrytest"
	"github.com/recur-go/recur/schedule"
)

func TestRecorder(t *testing.T) {
	var r retrytest.Recorder
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() {
			r.Observe(context.Background(), retry.Event{Kind: retry.Attempted, Target: "db", Attempt: i + 1, Label: "timeout", Err: errors.New("slow")})
		})
	}
	wg.Wait()
	seen := r.Seen()
	slices.SortFunc(seen, func(a, b retrytest.Seen) int { return a.Attempt - b.Attempt })
	want := []retrytest.Seen{
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

func ExampleRecorder() {
	var rec retrytest.Recorder
	o := retry.Options{Caps: retry.Caps{Clock: clockcap.Virtual(time.Now())}, Observer: &rec, Target: "db", Unthrottled: true}
	n := 0
	_, _ = retry.Retry(context.Background(), o, schedule.Times{N: 3}, func(context.Context) (int, error) {
		if n++; n < 2 {
			return 0, errors.New("busy")
		}
		return n, nil
	})
	for _, s := range rec.Seen() {
		fmt.Println(s.Kind, s.Target, s.Attempt)
	}
	// Output:
	// attempted db 1
	// retrying db 1
	// attempted db 2
	// recovered db 2
}
