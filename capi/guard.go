package main

/*
#define RECUR_BUILDING
#include "recur.h"
*/
import "C"

import (
	"encoding/json"
	"sync"
	"time"
	"unsafe"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/capi/internal/guardconfig"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

// guard is a target's breaker, budget and retry policy. A transaction's
// guard (recur_guard_tx) is a copy with inTx set, sharing the breaker and
// the budget. Its fields never change, and the breaker and the budget are
// safe for concurrent use, so a guard needs no lock.
type guard struct {
	name       string
	br         *breaker.Breaker // nil: none
	bu         budget.Budget    // nil: none
	budgetKind string
	retry      schedule.Schedule // nil: no retries
	timed      bool              // retry measures time (interp.NeedsStart)
	inTx       bool
}

// newGuard builds a guard from its decoded config.
func newGuard(c guardconfig.Config) (*guard, *failure) {
	g := &guard{name: c.Name, retry: c.Retry, budgetKind: c.BudgetKind}
	if c.Retry != nil {
		g.timed = interp.NeedsStart(c.Retry)
	}
	if c.Breaker != nil {
		b, err := breaker.New(*c.Breaker)
		if err != nil { // guardconfig.Decode checked it already
			return nil, &failure{eConfig, guardconfig.Translate(err)}
		}
		g.br = b
	}
	if c.Budget != nil {
		b, err := c.Budget.New()
		if err != nil {
			return nil, &failure{eConfig, guardconfig.Translate(err)}
		}
		g.bu = b
	}
	return g, nil
}

// phase is where a call is: an attempt allowed and not yet recorded,
// waiting to retry, or done.
type phase uint8

const (
	allowed phase = iota
	waiting
	done
)

// call is one call and its attempts through a guard. Its functions
// serialise on mu, and check under it that the handle is still live: a
// call closed by another thread since the lookup is reported stale, not
// out of order.
type call struct {
	mu     sync.Mutex
	g      *guard
	marked bool // RECUR_F_RETRY
	phase  phase
	permit breaker.Permit // the allowed attempt's
	t0     time.Time      // the first allow, when g.timed
	start  time.Duration  // the last attempt's start, from t0
	run    *interp.Run    // the retry policy's, from the first retry on
}

func getGuard(h C.recur_handle) *guard {
	return (*guard)(handles.Get(uint64(h), kindGuard))
}

func getCall(h C.recur_handle) *call {
	return (*call)(handles.Get(uint64(h), kindCall))
}

// abandon records an attempt that was allowed but never recorded as
// Neutral, with the breaker and the budget, as package retry does for an
// attempt that panicked: it frees a half-open probe's place.
func (c *call) abandon() {
	if c.phase != allowed {
		return
	}
	if c.g.br != nil {
		c.g.br.Record(&c.permit, verdict.Neutral)
	}
	if c.g.bu != nil {
		c.g.bu.Record(verdict.Neutral)
	}
	c.phase = done
}

// record records v for the allowed attempt and decides whether to retry:
// the wait, or -1 and why not.
func (c *call) record(v verdict.Verdict) (int64, C.int) {
	g := c.g
	if g.br != nil {
		g.br.Record(&c.permit, v)
	}
	if g.bu != nil {
		g.bu.Record(v)
	}
	c.phase = done
	switch {
	case !v.Retry():
		return stopDelay, C.RECUR_WHY_DONE
	case g.inTx:
		return stopDelay, C.RECUR_WHY_IN_TX
	case v == verdict.Transient && !c.marked:
		return stopDelay, C.RECUR_WHY_NOT_MARKED
	case g.retry == nil:
		return stopDelay, C.RECUR_WHY_EXHAUSTED
	}
	var now time.Duration
	if g.timed {
		now = time.Since(c.t0)
	}
	if c.run == nil {
		r := interp.Start(g.retry, randcap.Real().Seed())
		c.run = &r
	}
	d, again := c.run.Next(c.start, now)
	if !again {
		return stopDelay, C.RECUR_WHY_EXHAUSTED
	}
	if g.bu != nil && !g.bu.AllowRetry() {
		return stopDelay, C.RECUR_WHY_BUDGET
	}
	c.phase = waiting
	return int64(d), C.RECUR_WHY_RETRY
}

// breakerStats and budgetStats are the JSON of recur_guard_stats.
type breakerStats struct {
	State          string `json:"state"`
	Opened         uint64 `json:"opened"`
	Rejected       uint64 `json:"rejected"`
	Successes      uint64 `json:"successes"`
	Failures       uint64 `json:"failures"`
	Slow           uint64 `json:"slow"`
	WindowCalls    uint64 `json:"window_calls"`
	WindowFailures uint64 `json:"window_failures"`
	Duplicates     uint64 `json:"duplicates"`
}

type budgetStats struct {
	Kind      string  `json:"kind"`
	Requests  uint64  `json:"requests"`
	Refused   uint64  `json:"refused"`
	Retries   uint64  `json:"retries"`
	Throttled uint64  `json:"throttled"`
	Tokens    float64 `json:"tokens"`
}

type guardStats struct {
	Name    string        `json:"name"`
	Breaker *breakerStats `json:"breaker"`
	Budget  *budgetStats  `json:"budget"`
}

func (g *guard) stats() guardStats {
	s := guardStats{Name: g.name}
	if g.br != nil {
		b := g.br.Stats()
		s.Breaker = &breakerStats{
			State: b.State.String(), Opened: b.Opened, Rejected: b.Rejected,
			Successes: b.Successes, Failures: b.Failures, Slow: b.Slow,
			WindowCalls: b.WindowCalls, WindowFailures: b.WindowFailures, Duplicates: b.Duplicates,
		}
	}
	if g.bu != nil {
		b := g.bu.Stats()
		s.Budget = &budgetStats{Kind: g.budgetKind, Requests: b.Requests, Refused: b.Refused, Retries: b.Retries, Throttled: b.Throttled, Tokens: b.Tokens}
	}
	return s
}

//export recur_guard_new
func recur_guard_new(config *C.char, out *C.recur_handle, errp **C.char) (rc C.int) {
	defer recoveredErr(&rc, errp)
	clearErr(errp)
	if out == nil {
		return report(errp, &failure{eNull, "guard out-parameter is NULL"})
	}
	*out = 0
	text, f := readText(config, maxConfig, 0, "config")
	if f != nil {
		return report(errp, f)
	}
	c, err := guardconfig.Decode(text)
	if err != nil {
		return report(errp, &failure{eConfig, err.Error()})
	}
	g, f := newGuard(c)
	if f != nil {
		return report(errp, f)
	}
	h, put := handles.Put(kindGuard, unsafe.Pointer(g))
	if !put {
		return report(errp, &failure{eLimit, "too many open handles"})
	}
	*out = C.recur_handle(h)
	return rcOK
}

//export recur_guard_tx
func recur_guard_tx(h C.recur_handle, out *C.recur_handle) (rc C.int) {
	defer recovered(&rc)
	if out == nil {
		return eNull
	}
	*out = 0
	g := getGuard(h)
	if g == nil {
		return eHandle
	}
	tx := *g
	tx.inTx = true
	t, put := handles.Put(kindGuard, unsafe.Pointer(&tx))
	if !put {
		return eLimit
	}
	*out = C.recur_handle(t)
	return rcOK
}

//export recur_guard_state
func recur_guard_state(h C.recur_handle, out *C.int) (rc C.int) {
	defer recovered(&rc)
	if out == nil {
		return eNull
	}
	*out = C.RECUR_STATE_NONE
	g := getGuard(h)
	if g == nil {
		return eHandle
	}
	if g.br != nil {
		*out = C.int(g.br.State())
	}
	return rcOK
}

//export recur_guard_stats
func recur_guard_stats(h C.recur_handle, out **C.char) (rc C.int) {
	defer recovered(&rc)
	if out == nil {
		return eNull
	}
	*out = nil
	g := getGuard(h)
	if g == nil {
		return eHandle
	}
	b, err := json.Marshal(g.stats())
	if err != nil {
		return eInternal
	}
	return setString(out, string(b))
}

//export recur_guard_allow
func recur_guard_allow(h C.recur_handle, flags C.uint32_t, out *C.recur_handle) (rc C.int) {
	defer recovered(&rc)
	if out == nil {
		return eNull
	}
	*out = 0
	g := getGuard(h)
	if g == nil {
		return eHandle
	}
	if flags&^C.RECUR_F_RETRY != 0 {
		return eRange
	}
	marked := flags&C.RECUR_F_RETRY != 0
	if marked && g.inTx {
		return eInTx
	}
	c := &call{g: g, marked: marked}
	if g.br != nil {
		var err error
		if c.permit, err = g.br.Allow(); err != nil {
			return eOpen
		}
	}
	if g.bu != nil && !g.bu.Request() {
		if g.br != nil {
			g.br.Record(&c.permit, verdict.Neutral) // give the permit back
		}
		return eThrottled
	}
	if g.timed {
		c.t0 = time.Now()
	}
	ch, put := handles.Put(kindCall, unsafe.Pointer(c))
	if !put {
		c.abandon()
		return eLimit
	}
	*out = C.recur_handle(ch)
	return rcOK
}

//export recur_call_record
func recur_call_record(h C.recur_handle, v C.int, delay *C.int64_t, why *C.int) (rc C.int) {
	defer recovered(&rc)
	if why != nil {
		*why = C.RECUR_WHY_DONE
	}
	if delay == nil {
		return eNull
	}
	*delay = stopDelay
	c := getCall(h)
	if c == nil {
		return eHandle
	}
	if v < C.RECUR_SUCCESS || v > C.RECUR_NEUTRAL {
		return eRange
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if getCall(h) != c {
		return eHandle // closed since the lookup
	}
	if c.phase != allowed {
		return eOrder
	}
	d, w := c.record(verdict.Verdict(v))
	*delay = C.int64_t(d)
	if why != nil {
		*why = w
	}
	return rcOK
}

//export recur_call_allow
func recur_call_allow(h C.recur_handle) (rc C.int) {
	defer recovered(&rc)
	c := getCall(h)
	if c == nil {
		return eHandle
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if getCall(h) != c {
		return eHandle // closed since the lookup
	}
	if c.phase != waiting {
		return eOrder
	}
	if c.g.br != nil {
		var err error
		if c.permit, err = c.g.br.Allow(); err != nil {
			c.phase = done
			return eOpen
		}
	}
	if c.g.timed {
		c.start = time.Since(c.t0)
	}
	c.phase = allowed
	return rcOK
}
