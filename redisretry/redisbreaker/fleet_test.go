package redisbreaker_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/redisretry/internal/redistest"
	"github.com/recur-go/recur/redisretry/redisbreaker"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
	"github.com/redis/go-redis/v9"
)

// The fleet test: instances of a service, each a separate process (this
// test binary run again with childEnv set), call one HTTP server that
// fails for outage and then recovers, through a breaker named "api",
// either shared in Redis or each on its own.
const (
	childEnv  = "REDISBREAKER_FLEET_CHILD"
	instances = 20
	every     = 50 * time.Millisecond // each instance's call interval: 400 calls a second in all
	// timeout is the store's per-operation timeout: more than the default
	// 50 ms, because a loopback Redis on a busy 2-core CI machine, among
	// 20 processes, can take that long.
	timeout = 250 * time.Millisecond
	outage  = 5 * time.Second
	openFor = time.Second
	streak  = breaker.DefaultConsecutiveFailures
	probes  = breaker.DefaultHalfOpenProbes
)

// childConfig is what the test tells an instance, in its environment.
type childConfig struct {
	ID          int
	Shared      bool
	Redis, URL  string
	Start, Stop time.Time
}

// event is a transition an instance saw.
type event struct {
	At       time.Time
	From, To string
}

// report is what an instance tells the test, on its standard output.
type report struct {
	ID          int
	Transitions []event
	Calls       int           // calls attempted
	Served      int           // answered by the server, whatever the status
	Refused     int           // refused by the breaker
	Lost        int           // neither: an error on the way
	MaxOverhead time.Duration // the longest Allow plus Record
	StoreErrors uint64        // Redis operations that failed or were refused by the guard
}

// child is an instance: it calls the server every interval from Start to
// Stop and prints its report.
func child() int {
	var cfg childConfig
	if err := json.Unmarshal([]byte(os.Getenv(childEnv)), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var mu sync.Mutex
	rep := report{ID: cfg.ID}
	c := breaker.Config{
		Name:    "api",
		OpenFor: schedule.Exponential{Base: openFor, FactorPct: 100, Cap: openFor},
		OnStateChange: func(_ string, from, to breaker.State) {
			mu.Lock()
			rep.Transitions = append(rep.Transitions, event{time.Now(), from.String(), to.String()})
			mu.Unlock()
		},
	}
	var rdb *redis.Client
	var store *redisbreaker.Store
	if cfg.Shared {
		rdb = redis.NewClient(&redis.Options{Addr: cfg.Redis, ContextTimeoutEnabled: true, MaxRetries: -1,
			DialTimeout: 50 * time.Millisecond, DialerRetries: 1, PoolSize: 4})
		defer rdb.Close()
		var err error
		store, err = redisbreaker.New(redisbreaker.Config{Client: rdb, Timeout: timeout})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		c.Shared = store
	}
	b, err := breaker.New(c)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	hc := &http.Client{Timeout: time.Second}
	// The instances call in turn, not all at once.
	first := cfg.Start.Add(time.Duration(cfg.ID) * every / instances)
	time.Sleep(time.Until(first))
	for next := first; time.Now().Before(cfg.Stop); next = next.Add(every) {
		time.Sleep(time.Until(next))
		rep.Calls++
		t0 := time.Now()
		p, err := b.Allow()
		overhead := time.Since(t0)
		if err != nil {
			if errors.Is(err, breaker.ErrOpen) {
				rep.Refused++
			} else {
				rep.Lost++
			}
			rep.MaxOverhead = max(rep.MaxOverhead, overhead)
			continue
		}
		req, _ := http.NewRequest(http.MethodGet, cfg.URL, nil)
		req.Header.Set("X-Instance", strconv.Itoa(cfg.ID))
		req.Header.Set("X-Admitted", strconv.FormatInt(t0.Add(overhead).UnixNano(), 10))
		resp, err := hc.Do(req)
		v := verdict.Success
		switch {
		case err != nil:
			rep.Lost++
			v = verdict.Transient
		default:
			rep.Served++
			if resp.StatusCode >= 500 {
				v = verdict.Transient
			}
			resp.Body.Close()
		}
		t1 := time.Now()
		b.Record(&p, v)
		rep.MaxOverhead = max(rep.MaxOverhead, overhead+time.Since(t1))
	}
	if err := b.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	if store != nil {
		st := store.Guard().Stats()
		rep.StoreErrors = st.Failures + st.Rejected
	}
	mu.Lock()
	defer mu.Unlock()
	if err := json.NewEncoder(os.Stdout).Encode(rep); err != nil {
		return 2
	}
	return 0
}

// arrival is a call that reached the server.
type arrival struct {
	at, admitted time.Time // when it reached the server; when the breaker let it through
	failed       bool
	instance     string
}

// dependency is an HTTP server on 127.0.0.1 that answers 500 from down
// to up, 200 otherwise, and notes every call.
type dependency struct {
	url      string
	down, up time.Time
	mu       sync.Mutex
	calls    []arrival
}

func startDependency(t *testing.T, down, up time.Time) *dependency {
	t.Helper()
	d := &dependency{down: down, up: up}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		failed := !now.Before(d.down) && now.Before(d.up)
		d.mu.Lock()
		admitted, _ := strconv.ParseInt(r.Header.Get("X-Admitted"), 10, 64)
		d.calls = append(d.calls, arrival{now, time.Unix(0, admitted), failed, r.Header.Get("X-Instance")})
		d.mu.Unlock()
		if failed {
			http.Error(w, "down", http.StatusInternalServerError)
		}
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	d.url = "http://" + l.Addr().String() + "/"
	return d
}

// figures are what a run measured.
type figures struct {
	FailedBeforeOpen int             // failed calls let through before every instance was open
	Probes           []int           // calls that reached the server in each half-open spell of the outage
	spells           [][]arrival     // those calls
	Recovery         time.Duration   // from the server's recovery to every instance closed
	Lost, Refused    int             // calls lost, refused, by all instances
	Served           int             // calls the server answered
	ServedAfterKill  int             // of which after Redis was killed
	MaxOverhead      time.Duration   // the longest Allow plus Record in any instance
	StoreErrors      uint64          // Redis operations failed or refused, in all instances
	reports          []report        // per instance
	allOpen          time.Time       // when the last instance first opened
	killed           time.Time       // when Redis was killed, if it was
	down, up         time.Time       // the outage
	calls            []arrival       // what the server saw
	open             []time.Duration // when each instance first opened, after down
}

// runFleet starts the instances, lets them run through the outage, and
// measures. kill, if not nil, is called mid-outage.
func runFleet(t *testing.T, shared bool, redisAddr string, kill func()) figures {
	t.Helper()
	start := time.Now().Add(700 * time.Millisecond)
	down := start.Add(time.Second)
	up := down.Add(outage)
	stop := up.Add(2 * time.Second)
	dep := startDependency(t, down, up)
	ctx, cancel := context.WithDeadline(context.Background(), stop.Add(10*time.Second))
	defer cancel()
	type result struct {
		out []byte
		err error
	}
	results := make(chan result, instances)
	for i := range instances {
		cfg, _ := json.Marshal(childConfig{ID: i, Shared: shared, Redis: redisAddr, URL: dep.url, Start: start, Stop: stop})
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+string(cfg))
		cmd.Stderr = os.Stderr
		go func() {
			out, err := cmd.Output()
			results <- result{out, err}
		}()
	}
	var f figures
	f.down, f.up = down, up
	if kill != nil {
		time.Sleep(time.Until(down.Add(1500 * time.Millisecond)))
		f.killed = time.Now()
		kill()
	}
	for range instances {
		r := <-results
		if r.err != nil {
			t.Fatalf("instance: %v", r.err)
		}
		var rep report
		if err := json.Unmarshal(r.out, &rep); err != nil {
			t.Fatalf("instance report %q: %v", r.out, err)
		}
		f.reports = append(f.reports, rep)
	}
	dep.mu.Lock()
	f.calls = slices.Clone(dep.calls)
	dep.mu.Unlock()
	f.measure(t)
	return f
}

// measure works the figures out of the reports and the server's notes.
func (f *figures) measure(t *testing.T) {
	t.Helper()
	var closedAll time.Time
	for _, r := range f.reports {
		f.Lost += r.Lost
		f.Refused += r.Refused
		f.Served += r.Served
		f.MaxOverhead = max(f.MaxOverhead, r.MaxOverhead)
		f.StoreErrors += r.StoreErrors
		var opened, closed time.Time
		for _, e := range r.Transitions {
			if e.To == "open" && opened.IsZero() && !e.At.Before(f.down) {
				opened = e.At
			}
			if e.To == "closed" && closed.IsZero() && !e.At.Before(f.up) {
				closed = e.At
			}
		}
		if opened.IsZero() {
			t.Fatalf("instance %d never opened: %+v", r.ID, r.Transitions)
		}
		if closed.IsZero() {
			t.Fatalf("instance %d did not close after the outage: %+v", r.ID, r.Transitions)
		}
		f.open = append(f.open, opened.Sub(f.down))
		if opened.After(f.allOpen) {
			f.allOpen = opened
		}
		if closed.After(closedAll) {
			closedAll = closed
		}
	}
	f.Recovery = closedAll.Sub(f.up)
	var last time.Time
	for _, c := range f.calls {
		if c.failed && c.admitted.Before(f.allOpen) {
			f.FailedBeforeOpen++
		}
		if !f.killed.IsZero() && c.at.After(f.killed) {
			f.ServedAfterKill++
		}
		// Once every instance is open, each call let through during the
		// outage is a probe (a call let through just before its instance
		// opened may reach the server after); spells are a second apart.
		if c.admitted.After(f.allOpen) && c.at.Before(f.up) {
			if len(f.Probes) == 0 || c.admitted.Sub(last) > 300*time.Millisecond {
				f.Probes = append(f.Probes, 0)
				f.spells = append(f.spells, nil)
			}
			f.Probes[len(f.Probes)-1]++
			f.spells[len(f.spells)-1] = append(f.spells[len(f.spells)-1], c)
			last = c.admitted
		}
	}
}

func (f figures) String() string {
	return fmt.Sprintf("failed calls before all open: %d; probes per half-open: %v; recovery: %v; served %d, refused %d, lost %d; max breaker overhead per call %v; store errors %d",
		f.FailedBeforeOpen, f.Probes, f.Recovery.Round(time.Millisecond), f.Served, f.Refused, f.Lost, f.MaxOverhead.Round(time.Microsecond), f.StoreErrors)
}

// The fleet's headline: with the state shared in Redis, 20 instances
// let through about as many failed calls before they are all open as one
// breaker does (ConsecutiveFailures, plus what the fleet sends while the
// opening travels: a flush and a pub/sub message), and one probe per
// half-open spell; each on its own, 20 times both. With Redis killed mid-outage,
// no call is lost and the instances go on alone.
func TestFleetOfProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 60 processes over 25 s")
	}
	if raceEnabled {
		t.Skip("the race detector would slow the 20 processes it times: run without -race (make redis-test does)")
	}
	srv := redistest.Start(t)

	shared := runFleet(t, true, srv.Addr, nil)
	t.Logf("shared:       %v", shared)
	alone := runFleet(t, false, "", nil)
	t.Logf("per-instance: %v", alone)
	killed := runFleet(t, true, srv.Addr, srv.Kill)
	t.Logf("redis killed: %v; served after the kill %d", killed, killed.ServedAfterKill)

	// The slack: the fleet's calls while the opening travels (a flush, a
	// script, a pub/sub message), up to 100 ms of them on a busy machine
	// at 400 calls a second.
	const slack = 40
	for _, f := range []figures{shared, killed} {
		if f.FailedBeforeOpen > streak+slack {
			t.Errorf("shared: %d failed calls before all open, want at most %d + %d", f.FailedBeforeOpen, streak, slack)
		}
	}
	if alone.FailedBeforeOpen < instances*streak {
		t.Errorf("per-instance: %d failed calls before all open, want at least %d", alone.FailedBeforeOpen, instances*streak)
	}
	if len(shared.Probes) == 0 {
		t.Errorf("shared: no half-open spell during the outage")
	}
	for i, n := range shared.Probes {
		if n != probes {
			t.Errorf("shared: half-open spell %d sent %d probes, want %d", i, n, probes)
			shared.explain(t, shared.spells[i])
		}
	}
	for _, f := range []figures{shared, alone, killed} {
		if f.Lost != 0 {
			t.Errorf("%d calls lost", f.Lost)
		}
	}
	if killed.ServedAfterKill == 0 {
		t.Errorf("redis killed: no call reached the server after the kill")
	}
	if killed.MaxOverhead > timeout+50*time.Millisecond {
		t.Errorf("redis killed: a call spent %v in the breaker, want at most the timeout %v and some", killed.MaxOverhead, timeout)
	}
}

// explain logs the calls of a spell and what their instances saw around
// them.
func (f figures) explain(t *testing.T, calls []arrival) {
	for _, c := range calls {
		t.Logf("call from instance %s let through at %v, at the server at %v", c.instance, c.admitted.Sub(f.down), c.at.Sub(f.down))
		for _, r := range f.reports {
			if strconv.Itoa(r.ID) != c.instance {
				continue
			}
			for _, e := range r.Transitions {
				if d := e.At.Sub(c.at); d > -1500*time.Millisecond && d < 500*time.Millisecond {
					t.Logf("  %v: %s -> %s", e.At.Sub(f.down), e.From, e.To)
				}
			}
		}
	}
}
