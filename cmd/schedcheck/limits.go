package main

import (
	"fmt"
	"time"

	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/storm"
)

// Limits of the simulating commands' flags, checked before any work; each
// keeps a run within a few seconds and well under 100 MB. storm's flags
// share package storm's limits. docs/limits.md lists them all.
const (
	maxSimAttempts   = 100_000            // simulate --max-attempts
	maxAttemptTime   = 7 * 24 * time.Hour // simulate --attempt-time
	maxPlotSeeds     = 100_000            // plot --seeds
	maxPlotRetries   = 1_000              // plot --max-retries
	maxPlotSamples   = 1_000_000          // plot --seeds × --max-retries: the delays it keeps
	maxStormPolicies = 8                  // storm's policies: each may take storm.MaxWork write calls
)

// flagRange reports v outside [lo, hi] as an error naming the flag.
func flagRange[T int | time.Duration](name string, v, lo, hi T) error {
	switch {
	case v < lo:
		return fmt.Errorf("--%s %v is below the minimum %v", name, v, lo)
	case v > hi:
		return fmt.Errorf("--%s %v is above the maximum %v", name, v, hi)
	}
	return nil
}

// badFlags prints every non-nil error as the command's and reports
// whether there was one.
func (c *cli) badFlags(cmd string, errs ...error) bool {
	bad := false
	for _, err := range errs {
		if err != nil {
			c.errorf("%s: %v", cmd, err)
			bad = true
		}
	}
	return bad
}

// tooBig reports a policy of more than storm.MaxNodes nodes: a decision
// may step every node, so simulate and plot share storm's limit, which
// bounds their time per decision.
func tooBig(s schedule.Schedule) error {
	if n := nodes(s, storm.MaxNodes+1); n > storm.MaxNodes {
		return fmt.Errorf("the policy has more than %d nodes, the most a simulation takes", storm.MaxNodes)
	}
	return nil
}

// nodes counts the nodes of s, up to limit.
func nodes(s schedule.Schedule, limit int) int {
	if s == nil || limit <= 0 {
		return 0
	}
	a, b := schedule.Children(s)
	n := 1
	n += nodes(a, limit-n)
	n += nodes(b, limit-n)
	return min(n, limit)
}
