package redisbreaker_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/redisretry/internal/redistest"
	"github.com/recur-go/recur/redisretry/redisbreaker"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
	"github.com/redis/go-redis/v9"
)

// hostileValue returns a value of the kinds a broken or hostile writer
// leaves in a field: huge, negative, not a number, empty, a state no
// breaker has, and sometimes a sensible small number.
func hostileValue(r *rand.Rand) string {
	switch r.IntN(14) {
	case 0:
		return strconv.FormatInt(r.Int64(), 10)
	case 1:
		return "-" + strconv.Itoa(r.IntN(1_000_000))
	case 2:
		return "1e15"
	case 3:
		return "99999999999999999999999"
	case 4:
		return "255"
	case 5:
		return "-1"
	case 6:
		return ""
	case 7:
		return "abc"
	case 8:
		return "1.5"
	case 9:
		return strconv.Itoa(r.IntN(6))
	case 10:
		return strings.Repeat("9", r.IntN(30))
	case 11:
		return "1000000000000000"
	case 12:
		return "9007199254740993"
	}
	return strconv.Itoa(r.IntN(100))
}

// badValue returns a value no field of a breaker's state can hold: not
// an integer, negative, or beyond 2^53. (A writer with access to Redis
// can also write a state that is valid and wrong, such as "closed" in a
// new generation; no check can tell that from the fleet's own. The state
// key gets only bad values, so that the probes the test counts are the
// breakers' own; the window's and probes' fields get any.)
func badValue(r *rand.Rand) string {
	switch r.IntN(8) {
	case 0:
		return "-" + strconv.Itoa(1+r.IntN(1_000_000))
	case 1:
		return "99999999999999999999999"
	case 2:
		return "-1"
	case 3:
		return ""
	case 4:
		return "abc"
	case 5:
		return "1.5"
	case 6:
		return "9007199254740993"
	}
	return strconv.FormatInt(1<<53+1+r.Int64N(1<<62), 10)
}

// hostileMessage returns a message for a breaker's channel that is no
// state a breaker can take: garbage, or the right shape with wrong
// numbers.
func hostileMessage(r *rand.Rand) string {
	switch r.IntN(6) {
	case 0:
		return hostileValue(r)
	case 1:
		f := make([]string, 5)
		for i := range f {
			f[i] = hostileValue(r)
		}
		f[1] = badValue(r)
		return strings.Join(f, " ")
	case 2:
		return strconv.Itoa(r.IntN(1000)) + " 2 1000000000000000 50000 50000" // a huge opening count
	case 3:
		return strconv.Itoa(r.IntN(1000)) + " 255 1 50000 50000"
	case 4:
		return strconv.Itoa(r.IntN(1000)) + " 2 1 1000000000000000 1000000000000000" // open for 31 years
	}
	return strings.Repeat("x ", r.IntN(1000))
}

// TestHostileRedis: while a fleet of instances calls a dead target, a
// writer fills the shared breaker's keys and channel with random values
// of every kind (huge, negative, not numbers; keys of the wrong type:
// string, list, set, sorted set; garbage messages) for 3 s; then Redis
// stalls (SIGSTOP) for 1.5 s while the calls go on. No call hangs (a
// watchdog bounds each, and the whole run), every instance opens on the
// dead target, most calls are refused, and no instance ever has more
// than HalfOpenProbes probes of one half-open spell out at once.
func TestHostileRedis(t *testing.T) {
	const (
		instances  = 4
		workers    = 4 // per instance: more than HalfOpenProbes, so the limit is tried
		halfOpen   = 2
		run        = 3 * time.Second // the hostile writer's
		stall      = 1500 * time.Millisecond
		callBound  = time.Second // a call that takes longer is a hang
		wholeBound = 30 * time.Second
	)
	srv := redistest.Start(t)
	admin := srv.Admin(t)
	type instance struct {
		b                *breaker.Breaker
		store            *redisbreaker.Store
		mu               sync.Mutex
		inFlight         map[int64]int64 // probes out, by spell
		spell            atomic.Int64    // transitions the instance reported
		maxInFlight      atomic.Int64
		opened           atomic.Int64
		allowed, refused atomic.Int64
	}
	fleet := make([]*instance, instances)
	for i := range fleet {
		in := &instance{inFlight: map[int64]int64{}}
		rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, ContextTimeoutEnabled: true, MaxRetries: -1,
			DialTimeout: 50 * time.Millisecond, DialerRetries: 1, PoolSize: 4})
		t.Cleanup(func() { rdb.Close() })
		store, err := redisbreaker.New(redisbreaker.Config{Client: rdb, Timeout: 100 * time.Millisecond, FlushMax: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		b, err := breaker.New(breaker.Config{
			Name: "api", Shared: store, HalfOpenProbes: halfOpen, ConsecutiveFailures: 3,
			OpenFor: schedule.Spaced{Every: 50 * time.Millisecond},
			OnStateChange: func(_ string, _, to breaker.State) {
				in.spell.Add(1)
				if to == breaker.Open {
					in.opened.Add(1)
				}
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		in.b, in.store = b, store
		fleet[i] = in
	}
	state, window, probes, channel := fleet[0].store.Keys("api")
	keys := []string{state, window, probes}
	fields := map[string][]string{
		state:  {"gen", "state", "k", "until", "delay"},
		window: {"streak", "t0", "c0", "f0", "s0", "t3", "c3", "f3", "s3", "t9", "c9", "f9", "s9"},
		probes: {"claimed", "calls", "failures", "slow"},
	}

	watchdog := time.AfterFunc(wholeBound, func() {
		var buf bytes.Buffer
		_ = pprof.Lookup("goroutine").WriteTo(&buf, 1)
		panic("TestHostileRedis: no end after " + wholeBound.String() + "; goroutines:\n" + buf.String())
	})
	defer watchdog.Stop()

	stop := time.Now().Add(run + stall)
	var wg sync.WaitGroup
	var writes atomic.Int64
	var slowest atomic.Int64
	wg.Add(1)
	go func() { // the hostile writer
		defer wg.Done()
		r := rand.New(rand.NewPCG(1, 2))
		ctx := context.Background()
		defer func() { // then a clean slate, and Redis stalled (SIGSTOP) while the calls go on
			admin.Del(context.Background(), keys...)
			srv.Pause()
			time.Sleep(time.Until(stop))
			srv.Resume()
		}()
		for n := 0; n < 100_000 && time.Now().Before(stop.Add(-stall)); n++ {
			key := keys[r.IntN(len(keys))]
			var err error
			switch r.IntN(10) {
			case 0, 1, 2, 3:
				f := fields[key]
				v := hostileValue(r)
				if key == state {
					v = badValue(r)
				}
				err = admin.HSet(ctx, key, f[r.IntN(len(f))], v).Err()
			case 4:
				admin.Del(ctx, key)
				switch r.IntN(4) {
				case 0:
					err = admin.RPush(ctx, key, "x").Err()
				case 1:
					err = admin.SAdd(ctx, key, "x").Err()
				case 2:
					err = admin.Set(ctx, key, badValue(r), 0).Err()
				case 3:
					err = admin.ZAdd(ctx, key, redis.Z{Score: 1, Member: "x"}).Err()
				}
			case 5, 6, 7:
				err = admin.Publish(ctx, channel, hostileMessage(r)).Err()
			case 8:
				err = admin.Del(ctx, keys...).Err() // a clean slate now and then
			case 9:
				time.Sleep(time.Duration(r.IntN(5)) * time.Millisecond)
			}
			if _, replied := errors.AsType[redis.Error](err); err != nil && !replied { // WRONGTYPE is expected
				t.Errorf("hostile writer: %v", err)
				return
			}
			writes.Add(1)
		}
	}()
	for _, in := range fleet {
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(stop) {
					spell, before := in.spell.Load(), in.b.State()
					t0 := time.Now()
					p, err := in.b.Allow()
					if err != nil {
						in.refused.Add(1)
						noteSlow(&slowest, time.Since(t0))
						time.Sleep(500 * time.Microsecond)
						continue
					}
					in.allowed.Add(1)
					// A probe: let through when the breaker was not
					// closed, and half-open after (a call let through
					// closed just before a notice of half-open is not).
					// Probes are counted per half-open spell (between two
					// transitions the instance reported): a probe of an
					// earlier spell still out (the fleet closed or
					// reopened, and a new spell began, before it failed)
					// is not this one's. A call let through while a
					// transition was made is not counted.
					probe := before != breaker.Closed && in.b.State() == breaker.HalfOpen && in.spell.Load() == spell
					if probe {
						in.mu.Lock()
						in.inFlight[spell]++
						n := in.inFlight[spell]
						in.mu.Unlock()
						for m := in.maxInFlight.Load(); n > m && !in.maxInFlight.CompareAndSwap(m, n); m = in.maxInFlight.Load() {
						}
					}
					time.Sleep(2 * time.Millisecond) // the dead target takes its time to fail
					if probe {
						in.mu.Lock()
						in.inFlight[spell]--
						in.mu.Unlock()
					}
					t1 := time.Now()
					in.b.Record(&p, verdict.Transient)
					noteSlow(&slowest, time.Since(t1)+t1.Sub(t0)-2*time.Millisecond)
				}
			}()
		}
	}
	wg.Wait()
	for _, in := range fleet {
		if err := in.b.Close(); err != nil {
			t.Error(err)
		}
	}
	var allowed, refused int64
	for i, in := range fleet {
		st := in.store.Stats()
		t.Logf("instance %d: opened %d times, %d calls let through, %d refused, most probes out at once %d; store %+v",
			i, in.opened.Load(), in.allowed.Load(), in.refused.Load(), in.maxInFlight.Load(), st)
		allowed += in.allowed.Load()
		refused += in.refused.Load()
		if in.opened.Load() == 0 {
			t.Errorf("instance %d never opened on the dead target", i)
		}
		if m := in.maxInFlight.Load(); m > halfOpen {
			t.Errorf("instance %d had %d probes out at once, want at most %d", i, m, halfOpen)
		}
	}
	t.Logf("%d hostile writes; %d calls let through, %d refused; slowest Allow+Record %v",
		writes.Load(), allowed, refused, time.Duration(slowest.Load()))
	if refused < 4*allowed {
		t.Errorf("%d calls let through to a dead target against %d refused: the breakers are not open most of the time", allowed, refused)
	}
	if d := time.Duration(slowest.Load()); d > callBound {
		t.Errorf("a call spent %v in the breaker, want at most %v", d, callBound)
	}
}

func noteSlow(slowest *atomic.Int64, d time.Duration) {
	for m := slowest.Load(); int64(d) > m && !slowest.CompareAndSwap(m, int64(d)); m = slowest.Load() {
	}
}
