package engine_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/cmd/schedcheck/playground/engine"
	"github.com/recur-go/recur/storm"
)

// TestStormNilProgress: Storm with no progress func runs (it panicked)
// and gives the rows a progress func does not change.
func TestStormNilProgress(t *testing.T) {
	policies := []string{"exponential(10ms, 200%, 2s)", "fulljitter(10ms, 2s)"}
	got, err := engine.Storm(context.Background(), policies, 20, 5, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := engine.Storm(context.Background(), policies, 20, 5, 1, func(int, storm.Progress) {})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}
