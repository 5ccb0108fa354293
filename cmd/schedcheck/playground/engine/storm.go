package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/storm"
)

// MaxStormPolicies is how many policies the page compares at once.
const MaxStormPolicies = 4

// StormRow is one policy's outcome, as `schedcheck storm --json` prints it.
type StormRow struct {
	Policy string  `json:"policy"`
	Calls  float64 `json:"calls"`   // write calls per run
	TimeNS int64   `json:"time_ns"` // time until the last client succeeded
	GaveUp float64 `json:"gave_up"` // clients per run whose policy stopped first
	Cut    int     `json:"runs_cut_short"`
}

// Storm runs Brooker's contention experiment (package storm) for each
// policy with clients and runs, calling progress after each run with the
// policy's index; a nil progress is not called. An empty policy text is
// skipped.
func Storm(ctx context.Context, policies []string, clients, runs int, seed uint64, progress func(policy int, p storm.Progress)) ([]StormRow, error) {
	if len(policies) > MaxStormPolicies {
		return nil, fmt.Errorf("%d policies; the playground compares at most %d", len(policies), MaxStormPolicies)
	}
	cfg := storm.Config{Clients: clients, Runs: runs, Seed: seed}
	rows := []StormRow{}
	for i, text := range policies {
		if text == "" {
			continue
		}
		s, err := parse.Parse(text)
		if err != nil {
			return nil, fmt.Errorf("policy %d: %w", i+1, err)
		}
		if progress != nil {
			cfg.Progress = func(p storm.Progress) { progress(i, p) }
		}
		r, err := storm.Simulate(ctx, s, cfg)
		if err != nil {
			return nil, fmt.Errorf("policy %d: %w", i+1, err)
		}
		rows = append(rows, StormRow{Policy: parse.Format(s, parse.Infix), Calls: r.Calls, TimeNS: int64(r.Time.Round(time.Microsecond)), GaveUp: r.GaveUp, Cut: r.Cut})
	}
	return rows, nil
}
