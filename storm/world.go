package storm

import (
	"context"
	"math"
	"math/rand/v2"
	"time"

	"github.com/recur-go/recur/internal/sat"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
)

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

func (e event) before(f event) bool {
	if e.at != f.at {
		return e.at < f.at
	}
	return e.seq < f.seq
}

// queue is a binary min-heap of events, earliest first. Each client has at
// most one message in flight, so it never holds more than Clients events.
type queue []event

func (q *queue) push(e event) {
	*q = append(*q, e)
	h := *q
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h[i].before(h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *queue) pop() event {
	h := *q
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		l, small := 2*i+1, i
		if l < n && h[l].before(h[small]) {
			small = l
		}
		if r := l + 1; r < n && h[r].before(h[small]) {
			small = r
		}
		if small == i {
			break
		}
		h[i], h[small] = h[small], h[i]
		i = small
	}
	*q = h
	return top
}

type client struct {
	run     interp.Run
	attempt int64 // when the current attempt began
}

type world struct {
	ctx     context.Context
	cfg     Config
	rng     *rand.Rand
	s       schedule.Schedule
	q       queue
	seq     int64
	clients []client
	done    int // runs finished
	calls   int // write calls of the runs finished
}

func (w *world) net() int64 {
	d := math.Abs(w.rng.NormFloat64()*float64(w.cfg.NetSD) + float64(w.cfg.NetMean))
	return int64(min(d, float64(math.MaxInt64/4)))
}

func (w *world) send(at int64, c, kind int, version int64) {
	w.seq++
	w.q.push(event{at: sat.Add(at, w.net()), seq: w.seq, client: c, kind: kind, version: version})
}

// progress reports the runs finished and the write calls made, calls of
// them in the run under way.
func (w *world) progress(calls int) {
	if w.cfg.Progress != nil {
		w.cfg.Progress(Progress{Run: w.done, Runs: w.cfg.Runs, Calls: w.calls + calls})
	}
}

// outcome is what one run did.
type outcome struct {
	calls  int   // write calls
	end    int64 // when the last client succeeded
	gaveUp int   // clients whose schedule stopped
	cut    bool  // cut short at MaxCalls or by the context
	err    error // the context's error, if it cut the run short
}

// run simulates one run. It checks the context every ProgressEvery write
// calls, when it reports progress.
func (w *world) run() (o outcome) {
	defer func() { w.calls += o.calls }()
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
	for len(w.q) > 0 {
		e := w.q.pop()
		c := &w.clients[e.client]
		switch e.kind {
		case readAtServer:
			w.send(e.at, e.client, readReply, version)
		case readReply:
			w.send(e.at, e.client, writeAtServer, e.version)
		case writeAtServer:
			o.calls++
			ok := int64(0)
			if e.version == version {
				version++
				ok = 1
			}
			w.send(e.at, e.client, writeReply, ok)
			if o.calls >= w.cfg.MaxCalls {
				o.end, o.cut = e.at, true
				return o
			}
			if o.calls%ProgressEvery == 0 {
				if o.err = w.ctx.Err(); o.err != nil {
					o.end, o.cut = e.at, true
					return o
				}
				w.progress(o.calls)
			}
		case writeReply:
			if e.version == 1 {
				o.end = max(o.end, e.at) // this client is done
				continue
			}
			d, ok := c.run.Next(time.Duration(c.attempt), time.Duration(e.at))
			if !ok {
				o.gaveUp++
				continue
			}
			c.attempt = sat.Add(e.at, int64(d))
			w.send(c.attempt, e.client, readAtServer, 0)
		}
	}
	return o
}
