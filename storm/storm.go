// Package storm simulates clients that contend for one resource and retry
// on a schedule: the optimistic-concurrency experiment of Marc Brooker's
// "Exponential Backoff and Jitter" (AWS Architecture Blog, 2015).
//
// Every client reads a row's version and then writes it back conditionally;
// the write succeeds only if no other write came first. Each message crosses
// a network whose delay is |Normal(mean, sd)|. A client whose write failed
// asks its schedule for a delay and starts again with a new read; it stops
// when its write succeeds or its schedule stops. One client wins every
// round, so without backoff the work grows with the square of the number of
// clients. The simulation counts the work (write calls) and the time until
// the last client succeeded, and shows why jitter matters: without it, clients
// that collided once collide again.
//
// Simulate is deterministic: the same Config gives the same Result. Its
// work is bounded (see MaxWork and the other limits), and it stops early,
// with the runs made so far, when its context is done.
package storm

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/recur-go/recur/schedule"
)

// Config describes the experiment. The zero value of each field means the
// blog's setting; Validate checks the limits of each.
type Config struct {
	Clients  int           // contending clients, at most MaxClients; 0 means 100
	Runs     int           // runs averaged, at most MaxRuns; 0 means 100
	NetMean  time.Duration // mean one-way network delay, at most MaxNetDelay; 0 means 10ms
	NetSD    time.Duration // its standard deviation, at most MaxNetDelay; 0 means 2ms
	Seed     uint64        // seeds the network and the clients' schedules
	MaxCalls int           // write calls per run after which the run is cut short; 0 means MaxWork / Runs

	// Progress, if not nil, is called after every run and every
	// ProgressEvery write calls within a run, on Simulate's goroutine.
	Progress func(Progress)
}

// ProgressEvery is how many write calls a run makes between two calls of
// Config.Progress.
const ProgressEvery = 1 << 14

// Progress says how far Simulate has got.
type Progress struct {
	Run   int // runs finished
	Runs  int // runs to make
	Calls int // write calls so far, all runs together; at most MaxWork
}

// Result is the average outcome of the runs.
type Result struct {
	Clients  int           // contending clients
	Runs     int           // runs averaged
	Calls    float64       // write calls per run: the work
	Time     time.Duration // mean time from the start until the last client succeeded
	GaveUp   float64       // clients per run whose schedule stopped before they succeeded
	Cut      int           // runs cut short at MaxCalls, or by the context
	Attempts float64       // attempts per client: Calls / Clients
	Partial  bool          // the context ended Simulate before all the runs asked for were made
}

func (c Config) withDefaults() Config {
	if c.Clients == 0 {
		c.Clients = 100
	}
	if c.Runs == 0 {
		c.Runs = 100
	}
	if c.NetMean == 0 {
		c.NetMean = 10 * time.Millisecond
	}
	if c.NetSD == 0 {
		c.NetSD = 2 * time.Millisecond
	}
	if c.MaxCalls == 0 && c.Runs > 0 {
		c.MaxCalls = MaxWork / c.Runs
	}
	return c
}

// Simulate runs the experiment with every client retrying on s. An invalid
// s makes every client give up after its first failed write. What Check
// refuses is an error wrapping ErrConfig, returned before any work.
//
// When ctx is done Simulate stops at once and returns the runs made so
// far, with Partial set, and an error wrapping ctx's error: Runs counts the
// run it was in the middle of (as Cut as well), and is 0 when it stopped
// before the first run began.
func Simulate(ctx context.Context, s schedule.Schedule, cfg Config) (Result, error) {
	if err := Check(s, cfg); err != nil {
		return Result{}, err
	}
	cfg = cfg.withDefaults()
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x73746f726d))
	res := Result{Clients: cfg.Clients}
	var total float64
	w := world{ctx: ctx, cfg: cfg, rng: rng, s: s}
	var err error
	for res.Runs < cfg.Runs {
		if err = ctx.Err(); err != nil {
			break
		}
		o := w.run()
		res.Runs++
		res.Calls += float64(o.calls)
		total += float64(o.end)
		res.GaveUp += float64(o.gaveUp)
		if o.cut {
			res.Cut++
		}
		if err = o.err; err != nil {
			break
		}
		w.done = res.Runs
		w.progress(0)
	}
	if err != nil {
		res.Partial = true
		err = fmt.Errorf("storm: stopped after %d of %d runs: %w", res.Runs, cfg.Runs, err)
	}
	if res.Runs == 0 {
		return res, err
	}
	n := float64(res.Runs)
	res.Calls /= n
	res.GaveUp /= n
	res.Time = time.Duration(total / n)
	res.Attempts = res.Calls / float64(cfg.Clients)
	return res, err
}
