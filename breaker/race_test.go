package breaker_test

import (
	"math/rand/v2"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/verdict"
)

// However many calls race for a half-open breaker, exactly HalfOpenProbes
// get through.
func TestConcurrentHalfOpenAdmitsExactlyTheProbes(t *testing.T) {
	for _, probes := range []int{1, 3, 10} {
		b, clock := newBreaker(t, breaker.Config{ConsecutiveFailures: 1, HalfOpenProbes: probes})
		call(b, verdict.Failure)
		clock.Advance(5 * time.Second)
		var admitted atomic.Int64
		var permits sync.Map
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range 64 {
			wg.Go(func() {
				<-start
				if p, err := b.Allow(); err == nil {
					admitted.Add(1)
					permits.Store(i, &p)
				}
			})
		}
		close(start)
		wg.Wait()
		if got := admitted.Load(); got != int64(probes) {
			t.Errorf("%d probes: %d calls got through", probes, got)
		}
		permits.Range(func(_, v any) bool {
			b.Record(v.(*breaker.Permit), verdict.Success)
			return true
		})
		if s := b.State(); s != breaker.Closed {
			t.Errorf("%d probes all succeeded: state %v", probes, s)
		}
	}
}

// Many goroutines call through one breaker with random outcomes while
// another moves the clock; the counters must add up and every reported
// transition must be one the state machine has.
func TestConcurrentHammer(t *testing.T) {
	for _, c := range []breaker.Config{
		{ConsecutiveFailures: 4, MinCalls: 10, HalfOpenProbes: 2},
		{ConsecutiveFailures: 3, MinCalls: 10, HalfOpenProbes: 3, CountWindow: 20},
		{HalfOpenProbes: 2, TripWhen: func(c breaker.Counts) bool {
			return c.ConsecutiveFailures >= 3 || c.Failures*2 >= c.Calls && c.Calls >= 10
		}},
	} {
		hammer(t, c)
	}
}

func hammer(t *testing.T, c breaker.Config) {
	clock := clockcap.Manual(epoch)
	legal := map[[2]breaker.State]bool{
		{breaker.Closed, breaker.Open}:     true,
		{breaker.Open, breaker.HalfOpen}:   true,
		{breaker.HalfOpen, breaker.Open}:   true,
		{breaker.HalfOpen, breaker.Closed}: true,
	}
	var mu sync.Mutex
	var changes [][2]breaker.State
	c.Clock = clock
	c.OnStateChange = func(_ string, from, to breaker.State) {
		mu.Lock()
		defer mu.Unlock()
		changes = append(changes, [2]breaker.State{from, to})
	}
	b, err := breaker.New(c)
	if err != nil {
		t.Fatal(err)
	}
	var refused, counted atomic.Int64
	stop := make(chan struct{})
	var ticker sync.WaitGroup
	ticker.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				clock.Advance(time.Second)
			}
		}
	})
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 0))
			for range 3000 {
				p, err := b.Allow()
				if err != nil {
					refused.Add(1)
					continue
				}
				v := verdicts[r.IntN(len(verdicts))]
				if r.IntN(4) != 0 {
					v = verdict.Success
				}
				if v == verdict.Success || v.Failed() {
					counted.Add(1)
				}
				b.Record(&p, v)
			}
		})
	}
	wg.Wait()
	close(stop)
	ticker.Wait()
	st := b.Stats()
	if st.Rejected != uint64(refused.Load()) {
		t.Errorf("Stats.Rejected = %d; the callers saw %d refusals", st.Rejected, refused.Load())
	}
	if n := st.Successes + st.Failures; n > uint64(counted.Load()) || n == 0 {
		t.Errorf("Stats counted %d outcomes; %d were recorded", n, counted.Load())
	}
	mu.Lock()
	defer mu.Unlock()
	opens := 0
	for _, c := range changes {
		if !legal[c] {
			t.Errorf("illegal transition %v > %v", c[0], c[1])
		}
		if c[1] == breaker.Open {
			opens++
		}
	}
	if uint64(opens) != st.Opened || opens == 0 {
		t.Errorf("%d openings reported to the hook, Stats.Opened = %d; want equal and above 0", opens, st.Opened)
	}
	t.Logf("%d calls refused, %d outcomes counted, %d transitions", refused.Load(), st.Successes+st.Failures, len(changes))
}

// Success counts survive batching: many goroutines recording successes on
// a busy breaker lose none.
func TestConcurrentSuccessesAreAllCounted(t *testing.T) {
	b, _ := newBreaker(t, breaker.Config{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 5000 {
				call(b, verdict.Success)
			}
		})
	}
	wg.Wait()
	want := breaker.Stats{State: breaker.Closed, Successes: 40000, WindowCalls: 40000}
	if diff := cmp.Diff(want, b.Stats()); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
}

// However many goroutines record copies of one probe's Permit at once, it
// counts once; the rest are Duplicates.
func TestConcurrentDoubleRecordOfAProbe(t *testing.T) {
	b, clock := newBreaker(t, breaker.Config{ConsecutiveFailures: 1, HalfOpenProbes: 2})
	call(b, verdict.Failure)
	clock.Advance(5 * time.Second)
	p, err := b.Allow()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			var q breaker.Permit
			copyPermit(&q, &p) // the copy go vet reports, made on purpose
			b.Record(&q, verdict.Success)
		})
	}
	wg.Wait()
	st := b.Stats()
	if st.State != breaker.HalfOpen || st.Successes != 1 || st.Duplicates != 15 {
		t.Errorf("Stats = %+v; want half-open, 1 success, 15 duplicates", st)
	}
}

// copyPermit copies *src to *dst the way go vet cannot see, for the tests
// of what a copy does at run time.
func copyPermit(dst, src *breaker.Permit) {
	reflect.ValueOf(dst).Elem().Set(reflect.ValueOf(src).Elem())
}
