package main

/*
#define RECUR_BUILDING
#include "recur.h"
*/
import "C"

import (
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/recur-go/recur/capi/internal/guardconfig"
	"github.com/recur-go/recur/capi/internal/sat"
	"github.com/recur-go/recur/explain"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

// policy is a parsed policy. It is immutable, so that any number of
// threads may use it at once.
type policy struct {
	s schedule.Schedule
	// runs keeps *interp.Run values for delay, so that a call to it
	// allocates nothing once the pool is warm.
	runs sync.Pool
}

// bom is the UTF-8 byte order mark, which parse.Parse skips.
const bom = "\uFEFF"

// parsePolicy parses the text of a policy.
func parsePolicy(src string) (*policy, *failure) {
	s, err := parse.Parse(src)
	if err != nil {
		if len(strings.TrimPrefix(src, bom)) > parse.MaxLen {
			return nil, &failure{eTooLong, err.Error()}
		}
		return nil, &failure{eParse, guardconfig.ParseMessage(err)}
	}
	return &policy{s: s}, nil
}

// delay returns the wait after attempt (from 1) of the run from seed
// whose attempts take no time, or -1 when the run stops there.
func (p *policy) delay(attempt int64, seed uint64) int64 {
	r, _ := p.runs.Get().(*interp.Run)
	if r == nil {
		x := interp.Start(p.s, seed)
		r = &x
	} else {
		r.Reset(seed)
	}
	d := int64(-1)
	var t time.Duration
	for i := int64(1); i <= attempt; i++ {
		wait, ok := r.Next(t, t)
		if !ok {
			break
		}
		if i == attempt {
			d = int64(wait)
		}
		t = sat.AddDur(t, wait)
	}
	p.runs.Put(r)
	return d
}

// bounds converts schedule.Bounds to recur_bounds, -1 for no bound.
func bounds(s schedule.Schedule) C.recur_bounds {
	b := schedule.Bounds(s)
	out := C.recur_bounds{max_attempts: -1, min_total_ns: -1, max_total_ns: -1, max_delay_ns: -1}
	if b.AttemptsBounded() {
		out.max_attempts = C.int64_t(b.MaxAttempts)
	}
	if b.MinTotal != schedule.MaxDuration {
		out.min_total_ns = C.int64_t(b.MinTotal)
	}
	if b.TotalBounded() {
		out.max_total_ns = C.int64_t(b.MaxTotal)
	}
	if b.MaxDelay != schedule.MaxDuration {
		out.max_delay_ns = C.int64_t(b.MaxDelay)
	}
	if b.Stops {
		out.stops = 1
	}
	return out
}

// getPolicy returns the policy h names, or nil.
func getPolicy(h C.recur_handle) *policy {
	return (*policy)(handles.Get(uint64(h), kindPolicy))
}

//export recur_policy_parse
func recur_policy_parse(src *C.char, out *C.recur_handle, errp **C.char) (rc C.int) {
	defer recoveredErr(&rc, errp)
	clearErr(errp)
	if out == nil {
		return report(errp, &failure{eNull, "policy out-parameter is NULL"})
	}
	*out = 0
	text, f := readText(src, maxPolicy, len(bom), "policy")
	if f != nil {
		return report(errp, f)
	}
	p, f := parsePolicy(text)
	if f != nil {
		return report(errp, f)
	}
	h, put := handles.Put(kindPolicy, unsafe.Pointer(p))
	if !put {
		return report(errp, &failure{eLimit, "too many open handles"})
	}
	*out = C.recur_handle(h)
	return rcOK
}

//export recur_policy_print
func recur_policy_print(h C.recur_handle, style C.int, out **C.char) (rc C.int) {
	defer recovered(&rc)
	if out == nil {
		return eNull
	}
	*out = nil
	p := getPolicy(h)
	if p == nil {
		return eHandle
	}
	if style != C.RECUR_CANONICAL && style != C.RECUR_INFIX {
		return eRange
	}
	return setString(out, parse.Format(p.s, parse.Style(style)))
}

//export recur_policy_explain
func recur_policy_explain(h C.recur_handle, out **C.char) (rc C.int) {
	defer recovered(&rc)
	if out == nil {
		return eNull
	}
	*out = nil
	p := getPolicy(h)
	if p == nil {
		return eHandle
	}
	return setString(out, explain.Explain(p.s).Explanation)
}

//export recur_policy_bounds
func recur_policy_bounds(h C.recur_handle, out *C.recur_bounds) (rc C.int) {
	defer recovered(&rc)
	if out == nil {
		return eNull
	}
	*out = C.recur_bounds{}
	p := getPolicy(h)
	if p == nil {
		return eHandle
	}
	*out = bounds(p.s)
	return rcOK
}

//export recur_policy_delay
func recur_policy_delay(h C.recur_handle, attempt C.int64_t, random C.uint64_t, out *C.int64_t) (rc C.int) {
	defer recovered(&rc)
	if out == nil {
		return eNull
	}
	*out = stopDelay
	p := getPolicy(h)
	if p == nil {
		return eHandle
	}
	if attempt < 1 || attempt > maxDelayAttempt {
		return eRange
	}
	*out = C.int64_t(p.delay(int64(attempt), uint64(random)))
	return rcOK
}
