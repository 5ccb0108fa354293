package outage

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/breaker/breakertest"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/retry"
)

// errDown is what the dependency answers while it is down.
var errDown = errors.New("dependency down")

// epoch is the virtual clock's reading at the start of a run.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Simulate runs the scenario c describes. It returns an error only for a
// Config it cannot run (an unknown Budget); an invalid Policy is the
// runner's to report, and shows as failed requests.
func Simulate(c Config) (Result, error) {
	c = c.withDefaults()
	s := &sim{cfg: c}
	s.up = c.Before + c.Down
	s.end = s.up + c.After
	s.budgets = make([]budget.Budget, c.Clients)
	s.breakers = make([]*breaker.Breaker, c.Clients)
	clock := simClock{s}
	var store *breakertest.MemStore
	if c.Breaker && c.Shared {
		store = breakertest.NewMemStore(clock)
	}
	s.opened = make([]bool, c.Clients)
	for i := range c.Clients {
		var err error
		rnd := randcap.Seeded(mix(c.Seed, uint64(i)+1<<32))
		switch c.Budget {
		case NoBudget:
		case TokenBucket:
			s.budgets[i], err = budget.NewTokenBucket(budget.TokenBucketConfig{})
		case Ratio:
			s.budgets[i], err = budget.NewRatio(budget.RatioConfig{Clock: clock})
		case Adaptive:
			s.budgets[i], err = budget.NewAdaptive(budget.AdaptiveConfig{Clock: clock, Random: rnd})
		default:
			return Result{}, fmt.Errorf("outage: unknown Budget %d", int(c.Budget))
		}
		if err != nil {
			return Result{}, err
		}
		if c.Breaker {
			bc := breaker.Config{Name: "dependency", Clock: clock, Random: rnd, OnStateChange: s.observe(i)}
			if store != nil {
				bc.Shared, bc.SharedFlush = store, -1
			}
			if s.breakers[i], err = breaker.New(bc); err != nil {
				return Result{}, err
			}
		}
	}
	s.flushing = store != nil
	s.recovery = make([]bucket, (c.After+c.Bucket-1)/c.Bucket)
	s.run()
	return s.result(), nil
}

// sim is one run: the event loop, the clients' guards and the counts.
type sim struct {
	cfg     Config
	up, end time.Duration // when the dependency comes back; when arrivals stop

	now   time.Duration // virtual time since the start
	seq   uint64        // orders events that fall at the same time
	queue events

	budgets  []budget.Budget
	breakers []*breaker.Breaker

	res      Result
	opened   []bool        // per client, whether its breaker has opened since the outage began
	nOpened  int           // how many have
	allOpen  bool          // whether all have
	spells   int           // half-open transitions after allOpen, during the outage
	flushing bool          // the breakers share a store: flush them every Flush
	flushAt  time.Duration // when next
	attempts []int         // attempts that reached the dependency, per Bucket since the start
	recovery []bucket      // requests that arrived after up, per Bucket since up
}

type bucket struct{ requests, succeeded int }

// run makes request n arrive at n/Rate seconds until end, and resumes
// sleeping requests in time order; a request that arrives at the same
// time as a wake-up goes first.
func (s *sim) run() {
	for n := 0; ; {
		arrive := time.Duration(int64(n) * int64(time.Second) / int64(s.cfg.Rate))
		if s.flushing && (arrive < s.end || len(s.queue) > 0) &&
			(arrive >= s.end || s.flushAt < arrive) && (len(s.queue) == 0 || s.flushAt < s.queue[0].at) {
			s.now = s.flushAt
			for _, b := range s.breakers {
				b.Flush()
			}
			s.flushAt += s.cfg.Flush
			continue
		}
		if arrive < s.end && (len(s.queue) == 0 || arrive <= s.queue[0].at) {
			s.now = arrive
			s.start(n)
			n++
			continue
		}
		if len(s.queue) == 0 {
			return
		}
		e := heap.Pop(&s.queue).(*event)
		s.now = e.at
		s.resume(e)
	}
}

// event is a request sleeping until at.
type event struct {
	at   time.Duration
	seq  uint64
	next func() (time.Duration, bool)
}

// start runs request n until it first waits.
func (s *sim) start(n int) {
	next, _ := iter.Pull(func(yield func(time.Duration) bool) { s.request(n, yield) })
	s.resume(&event{next: next})
}

// resume runs a request until it waits again, and queues its wake-up.
func (s *sim) resume(e *event) {
	d, ok := e.next()
	if !ok {
		return // the request is over
	}
	e.at, e.seq = s.now+d, s.seq
	s.seq++
	heap.Push(&s.queue, e)
}

// request is request n, from its arrival to its answer. Waiting, whether
// between attempts or during one, yields the wait to the event loop.
func (s *sim) request(n int, yield func(time.Duration) bool) {
	arrived := s.now
	client := n % s.cfg.Clients
	clock := reqClock{s, yield}
	o := retry.Options{
		Caps:    retry.Caps{Clock: clock, Random: randcap.Seeded(mix(s.cfg.Seed, uint64(n)))},
		Budget:  s.budgets[client],
		Breaker: s.breakers[client],
	}
	_, err := retry.Retry(context.Background(), o, s.cfg.Policy, func(ctx context.Context) (struct{}, error) {
		down := s.reach()
		if err := clock.Sleep(ctx, s.cfg.Attempt); err != nil {
			return struct{}{}, err
		}
		if down {
			return struct{}{}, errDown
		}
		return struct{}{}, nil
	})
	s.answer(arrived, err)
}

// reach counts an attempt reaching the dependency now and reports whether
// it is down.
func (s *sim) reach() (down bool) {
	s.res.Attempts++
	k := int(s.now / s.cfg.Bucket)
	for len(s.attempts) <= k {
		s.attempts = append(s.attempts, 0)
	}
	s.attempts[k]++
	down = s.now >= s.cfg.Before && s.now < s.up
	if down {
		s.res.OutageAttempts++
		if s.allOpen {
			s.res.ProbeAttempts++
		} else {
			s.res.FailedBeforeOpen++
		}
	}
	return down
}

// observe returns client i's breaker's OnStateChange: it notes when
// every breaker has opened during the outage, and counts the half-open
// spells after that as one breaker sees them: client 0's. Every breaker
// follows the same open schedule, so each sees as many; a fleet that
// shares its breakers sees each spell once.
func (s *sim) observe(i int) func(string, breaker.State, breaker.State) {
	return func(_ string, _, to breaker.State) {
		if s.now < s.cfg.Before || s.now >= s.up {
			return
		}
		switch to {
		case breaker.Open:
			if !s.opened[i] {
				s.opened[i] = true
				s.nOpened++
				if s.nOpened == len(s.opened) {
					s.allOpen = true
					s.res.AllOpen = s.now - s.cfg.Before
				}
			}
		case breaker.HalfOpen:
			if s.allOpen && i == 0 {
				s.spells++
			}
		}
	}
}

// answer counts a request that arrived at arrived and ended with err.
func (s *sim) answer(arrived time.Duration, err error) {
	s.res.Requests++
	if arrived >= s.cfg.Before && arrived < s.up {
		s.res.OutageRequests++
	}
	var re *retry.Error
	switch {
	case errors.Is(err, breaker.ErrOpen):
		s.res.Refused++
	case errors.Is(err, budget.ErrThrottled), errors.As(err, &re) && re.Reason == retry.Budget:
		s.res.Throttled++
	}
	if err != nil {
		s.res.Failed++
	}
	if arrived >= s.up {
		b := &s.recovery[(arrived-s.up)/s.cfg.Bucket]
		b.requests++
		if err == nil {
			b.succeeded++
		}
	}
}

func (s *sim) result() Result {
	r := s.res
	for _, a := range s.attempts {
		r.PeakAttempts = max(r.PeakAttempts, a)
	}
	r.Timeline = s.attempts
	r.HalfOpens = s.spells
	r.BucketRequests = int(int64(s.cfg.Rate) * int64(s.cfg.Bucket) / int64(time.Second))
	r.Recovered = true
	for k := len(s.recovery) - 1; k >= 0; k-- {
		if b := s.recovery[k]; b.succeeded*100 < b.requests*99 {
			r.Recovery = time.Duration(k+1) * s.cfg.Bucket
			r.Recovered = k < len(s.recovery)-1
			break
		}
	}
	return r
}

// reqClock is one request's clock: it reads the virtual time, and a wait
// hands control back to the event loop until the time has come.
type reqClock struct {
	s     *sim
	yield func(time.Duration) bool
}

func (c reqClock) Now() time.Time { return epoch.Add(c.s.now) }

func (c reqClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	if !c.yield(d) {
		return context.Canceled
	}
	return ctx.Err()
}

// simClock is the clock of the breakers and budgets: they only read it.
type simClock struct{ s *sim }

func (c simClock) Now() time.Time { return epoch.Add(c.s.now) }

func (c simClock) Sleep(context.Context, time.Duration) error {
	return errors.New("outage: a breaker or budget cannot sleep on the simulation's clock")
}

// events is a min-heap of events by time, then by order of queueing.
type events []*event

func (q events) Len() int { return len(q) }
func (q events) Less(i, j int) bool {
	return q[i].at < q[j].at || q[i].at == q[j].at && q[i].seq < q[j].seq
}
func (q events) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *events) Push(x any)   { *q = append(*q, x.(*event)) }
func (q *events) Pop() any {
	old := *q
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return e
}

// mix is SplitMix64's finalizer over seed and i: a distinct, well-spread
// seed for each request and client.
func mix(seed, i uint64) uint64 {
	z := seed + (i+1)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
