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
// Simulate is deterministic: the same Config gives the same Result.
package storm

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"time"

	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
)

// Config describes the experiment. The zero value of each field means the
// blog's setting.
type Config struct {
	Clients  int           // contending clients; default 100
	Runs     int           // runs averaged; default 100
	NetMean  time.Duration // mean one-way network delay; default 10ms
	NetSD    time.Duration // its standard deviation; default 2ms
	Seed     uint64        // seeds the network and the clients' schedules
	MaxCalls int           // per run, after which the run is cut short; default 10 000 000
}

// Result is the average outcome of the runs.
type Result struct {
	Clients  int           // contending clients
	Runs     int           // runs averaged
	Calls    float64       // write calls per run: the work
	Time     time.Duration // mean time from the start until the last client succeeded
	GaveUp   float64       // clients per run whose schedule stopped before they succeeded
	Cut      int           // runs cut short at MaxCalls
	Attempts float64       // attempts per client: Calls / Clients
}

func (c Config) withDefaults() Config {
	if c.Clients <= 0 {
		c.Clients = 100
	}
	if c.Runs <= 0 {
		c.Runs = 100
	}
	if c.NetMean <= 0 {
		c.NetMean = 10 * time.Millisecond
	}
	if c.NetSD <= 0 {
		c.NetSD = 2 * time.Millisecond
	}
	if c.MaxCalls <= 0 {
		c.MaxCalls = 10_000_000
	}
	return c
}

// Simulate runs the experiment with every client retrying on s. An invalid
// s makes every client give up after its first failed write.
func Simulate(s schedule.Schedule, cfg Config) Result {
	cfg = cfg.withDefaults()
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x73746f726d))
	res := Result{Clients: cfg.Clients, Runs: cfg.Runs}
	var total float64
	w := world{cfg: cfg, rng: rng, s: s}
	for i := 0; i < cfg.Runs; i++ {
		calls, end, gaveUp, cut := w.run()
		res.Calls += float64(calls)
		total += float64(end)
		res.GaveUp += float64(gaveUp)
		if cut {
			res.Cut++
		}
	}
	n := float64(cfg.Runs)
	res.Calls /= n
	res.GaveUp /= n
	res.Time = time.Duration(total / n)
	res.Attempts = res.Calls / float64(cfg.Clients)
	return res
}

// event kinds: a message arriving.
const (
	readAtServer = iota
	readReply
	writeAtServer
	writeReply
)

type event struct {
	at      int64 // nanoseconds since the run began
	seq     int64 // ties broken by order of sending
	client  int
	kind    int
	version int64 // read reply: the version read; write: the version to write; write reply: 1 if it succeeded
}

type queue []event

func (q queue) Len() int { return len(q) }
func (q queue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}
func (q queue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *queue) Push(x any)   { *q = append(*q, x.(event)) }
func (q *queue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

type client struct {
	run     interp.Run
	attempt int64 // when the current attempt began
}

type world struct {
	cfg     Config
	rng     *rand.Rand
	s       schedule.Schedule
	q       queue
	seq     int64
	clients []client
}

func (w *world) net() int64 {
	d := math.Abs(w.rng.NormFloat64()*float64(w.cfg.NetSD) + float64(w.cfg.NetMean))
	return int64(min(d, float64(math.MaxInt64/4)))
}

func (w *world) send(at int64, c, kind int, version int64) {
	w.seq++
	heap.Push(&w.q, event{at: addSat(at, w.net()), seq: w.seq, client: c, kind: kind, version: version})
}

// run simulates one run and returns the write calls, the time the last
// client succeeded, how many gave up and whether it was cut short.
func (w *world) run() (calls int, end int64, gaveUp int, cut bool) {
	w.q = w.q[:0]
	w.seq = 0
	if len(w.clients) != w.cfg.Clients {
		w.clients = make([]client, w.cfg.Clients)
		for i := range w.clients {
			w.clients[i].run = interp.Start(w.s, 0)
		}
	}
	for i := range w.clients {
		w.clients[i].run.Reset(w.rng.Uint64())
		w.clients[i].attempt = 0
		w.send(0, i, readAtServer, 0)
	}
	var version int64
	for w.q.Len() > 0 {
		e := heap.Pop(&w.q).(event)
		c := &w.clients[e.client]
		switch e.kind {
		case readAtServer:
			w.send(e.at, e.client, readReply, version)
		case readReply:
			w.send(e.at, e.client, writeAtServer, e.version)
		case writeAtServer:
			calls++
			ok := int64(0)
			if e.version == version {
				version++
				ok = 1
			}
			w.send(e.at, e.client, writeReply, ok)
			if calls >= w.cfg.MaxCalls {
				return calls, e.at, gaveUp, true
			}
		case writeReply:
			if e.version == 1 {
				end = max(end, e.at) // this client is done
				continue
			}
			d, ok := c.run.Next(time.Duration(c.attempt), time.Duration(e.at))
			if !ok {
				gaveUp++
				continue
			}
			c.attempt = addSat(e.at, int64(d))
			w.send(c.attempt, e.client, readAtServer, 0)
		}
	}
	return calls, end, gaveUp, false
}

func addSat(a, b int64) int64 {
	if s := a + b; s >= a {
		return s
	}
	return math.MaxInt64
}
