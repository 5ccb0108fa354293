package redisbreaker_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/redisretry/internal/redistest"
	"github.com/recur-go/recur/redisretry/redisbreaker"
	"github.com/recur-go/recur/verdict"
	"github.com/redis/go-redis/v9"
)

// load is what one run of TestFlushCost measured.
type load struct {
	clientCPU, redisCPU float64 // of one core, over the run
	commands            float64 // Redis commands a second, scripts' own included
	scripts             float64 // script calls a second
	rounds              float64 // round trips a second
	calls               int     // calls made
}

func (l load) String() string {
	return fmt.Sprintf("client %.1f%% of a core, redis-server %.1f%%, %.0f Redis commands/s (%.0f script calls/s, %.1f round trips/s), %d calls",
		100*l.clientCPU, 100*l.redisCPU, l.commands, l.scripts, l.rounds, l.calls)
}

// TestFlushCost: 100 busy targets, each called once a millisecond (up to
// 100,000 successful calls a second in all), through a Registry shared in
// Redis, against the same load with no store, and with FlushMax 5 ms (the
// rate of one script call per target per 5 ms that the store had before
// it batched). The
// client's CPU is the test process's (getrusage), Redis's from INFO cpu
// and its commands from INFO commandstats, over a run of 3 s.
func TestFlushCost(t *testing.T) {
	if testing.Short() {
		t.Skip("measures for 9 s")
	}
	if raceEnabled {
		t.Skip("the race detector would slow the client it measures: run without -race")
	}
	srv := redistest.Start(t)
	admin := srv.Admin(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, ContextTimeoutEnabled: true, MaxRetries: -1, DialerRetries: 1})
	t.Cleanup(func() { rdb.Close() })
	measure := func(shared bool, flushMax time.Duration) load {
		c := breaker.Config{}
		var store *redisbreaker.Store
		if shared {
			var err error
			store, err = redisbreaker.New(redisbreaker.Config{Client: rdb, FlushMax: flushMax})
			if err != nil {
				t.Fatal(err)
			}
			c.Shared = store
		}
		reg, err := breaker.NewRegistry(c, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer reg.Close()
		targets := make([]*breaker.Breaker, 100)
		for i := range targets {
			targets[i] = reg.Get("https://target-" + strconv.Itoa(i) + ":443")
		}
		time.Sleep(200 * time.Millisecond) // subscriptions made
		const run = 3 * time.Second
		u0, r0, cmd0 := rusage(t), redisCPU(t, admin), commandstats(t, admin)
		var rounds0 uint64
		if store != nil {
			rounds0 = store.Stats().Rounds
		}
		start := time.Now()
		tick := time.NewTicker(time.Millisecond)
		calls := 0
		for n := 0; n < 3000 && time.Since(start) < run; n++ {
			<-tick.C
			for _, b := range targets {
				p, err := b.Allow()
				if err != nil {
					t.Fatal(err)
				}
				b.Record(&p, verdict.Success)
				calls++
			}
		}
		tick.Stop()
		secs := time.Since(start).Seconds()
		u1, r1, cmd1 := rusage(t), redisCPU(t, admin), commandstats(t, admin)
		l := load{clientCPU: (u1 - u0).Seconds() / secs, redisCPU: (r1 - r0) / secs, calls: calls}
		for name, n := range cmd1 {
			if name == "info" {
				continue
			}
			l.commands += float64(n-cmd0[name]) / secs
			if name == "evalsha" || name == "eval" {
				l.scripts += float64(n-cmd0[name]) / secs
			}
		}
		if store != nil {
			l.rounds = float64(store.Stats().Rounds-rounds0) / secs
		}
		return l
	}
	local := measure(false, 0)
	t.Logf("no store:                 %v", local)
	shared := measure(true, 0)
	t.Logf("shared, default FlushMax: %v", shared)
	every5 := measure(true, 5*time.Millisecond)
	t.Logf("shared, FlushMax 5ms:     %v", every5)
	if d := shared.clientCPU - local.clientCPU; d > 0.05 {
		t.Errorf("sharing 100 busy targets costs %.1f%% of a client core, want at most 5%%", 100*d)
	}
	if shared.redisCPU > 0.05 {
		t.Errorf("100 busy targets cost redis-server %.1f%% of a core, want at most 5%%", 100*shared.redisCPU)
	}
}

// rusage returns the CPU time the test process has used.
func rusage(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// redisCPU returns the CPU seconds redis-server has used (INFO cpu).
func redisCPU(t *testing.T, admin *redis.Client) float64 {
	t.Helper()
	info, err := admin.Info(context.Background(), "cpu").Result()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for line := range strings.Lines(info) {
		line = strings.TrimSpace(line)
		for _, k := range []string{"used_cpu_sys:", "used_cpu_user:"} {
			if v, ok := strings.CutPrefix(line, k); ok {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatal(err)
				}
				sum += f
			}
		}
	}
	return sum
}

// commandstats returns the calls of each command so far (INFO
// commandstats), the commands that scripts run included.
func commandstats(t *testing.T, admin *redis.Client) map[string]int64 {
	t.Helper()
	info, err := admin.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]int64{}
	for line := range strings.Lines(info) {
		// cmdstat_evalsha:calls=123,usec=...
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		calls, _, _ := strings.Cut(strings.TrimPrefix(rest, "calls="), ",")
		n, err := strconv.ParseInt(calls, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		m[strings.TrimPrefix(name, "cmdstat_")] = n
	}
	return m
}
