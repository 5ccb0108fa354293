package storm

import (
	"errors"
	"fmt"
	"time"

	"github.com/recur-go/recur/schedule"
)

// Limits of a Config, checked by Validate before Simulate does any work.
// They keep one Simulate call within about 50 MB of memory and a few
// seconds, whatever the Config and the schedule; docs/limits.md lists them.
const (
	// MaxClients is the most contending clients.
	MaxClients = 10_000
	// MaxRuns is the most runs.
	MaxRuns = 10_000
	// MaxWork is the most write calls one Simulate makes, all runs
	// together. Every client writes at least once a run, so Clients × Runs
	// may not exceed it; a run is cut short after MaxCalls write calls, and
	// Runs × MaxCalls may not exceed it either.
	MaxWork = 1_000_000
	// MaxNetDelay is the largest NetMean and NetSD.
	MaxNetDelay = time.Hour
	// MaxNodes is the most nodes (variants, counting every child) the
	// schedule may have: a decision may step every node.
	MaxNodes = 256
	// MaxStates is the most node states all clients keep together:
	// Clients × the schedule's nodes, 64 bytes each.
	MaxStates = 1 << 18
)

// ErrConfig is what every error of Validate wraps: the Config or the
// schedule is outside the limits above.
var ErrConfig = errors.New("storm: invalid Config")

// Validate reports the first field of c, with the zero values replaced by
// their defaults, that is outside its limits, as an error wrapping
// ErrConfig that names the field, its value and the limit.
func (c Config) Validate() error {
	c = c.withDefaults()
	switch {
	case c.Clients < 0:
		return c.errorf("Clients %d is negative", c.Clients)
	case c.Runs < 0:
		return c.errorf("Runs %d is negative", c.Runs)
	case c.MaxCalls < 0:
		return c.errorf("MaxCalls %d is negative", c.MaxCalls)
	case c.Clients > MaxClients:
		return c.errorf("Clients %d is above the maximum %d (MaxClients)", c.Clients, MaxClients)
	case c.Runs > MaxRuns:
		return c.errorf("Runs %d is above the maximum %d (MaxRuns)", c.Runs, MaxRuns)
	case c.Clients*c.Runs > MaxWork:
		return c.errorf("Clients %d × Runs %d = %d write calls at the least, above the maximum %d (MaxWork)", c.Clients, c.Runs, c.Clients*c.Runs, MaxWork)
	case c.MaxCalls > MaxWork/c.Runs:
		return c.errorf("Runs %d × MaxCalls %d is above the maximum %d write calls (MaxWork)", c.Runs, c.MaxCalls, MaxWork)
	case c.NetMean < 0:
		return c.errorf("NetMean %v is negative", c.NetMean)
	case c.NetSD < 0:
		return c.errorf("NetSD %v is negative", c.NetSD)
	case c.NetMean > MaxNetDelay:
		return c.errorf("NetMean %v is above the maximum %v (MaxNetDelay)", c.NetMean, MaxNetDelay)
	case c.NetSD > MaxNetDelay:
		return c.errorf("NetSD %v is above the maximum %v (MaxNetDelay)", c.NetSD, MaxNetDelay)
	}
	return nil
}

func (Config) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrConfig}, args...)...)
}

// Check reports what Simulate would refuse, before any work: a Config
// outside its limits (see Validate), or a schedule of more than MaxNodes
// nodes or whose nodes times Clients exceed MaxStates. Its errors wrap
// ErrConfig.
func Check(s schedule.Schedule, cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	// Count no further than MaxNodes+1: a huge schedule costs no more
	// than a small one.
	n := nodes(s, MaxNodes+1)
	if n > MaxNodes {
		return fmt.Errorf("%w: the schedule has more than %d nodes (MaxNodes)", ErrConfig, MaxNodes)
	}
	if c := cfg.withDefaults().Clients; c*n > MaxStates {
		return fmt.Errorf("%w: Clients %d × %d schedule nodes = %d node states, above the maximum %d (MaxStates)", ErrConfig, c, n, c*n, MaxStates)
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
