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

	"github.com/recur-go/recur/interp"
)

// run is one run of a policy, stepped by the caller. Its functions
// serialise on mu, so that two threads using one run cannot tear its
// state.
type run struct {
	mu sync.Mutex
	r  interp.Run
}

func getRun(h C.recur_handle) *run {
	return (*run)(handles.Get(uint64(h), kindRun))
}

//export recur_run_start
func recur_run_start(policy C.recur_handle, seed C.uint64_t, out *C.recur_handle) (rc C.int) {
	defer recovered(&rc)
	if out == nil {
		return eNull
	}
	*out = 0
	p := getPolicy(policy)
	if p == nil {
		return eHandle
	}
	h, put := handles.Put(kindRun, unsafe.Pointer(&run{r: interp.Start(p.s, uint64(seed))}))
	if !put {
		return eLimit
	}
	*out = C.recur_handle(h)
	return rcOK
}

//export recur_run_next
func recur_run_next(h C.recur_handle, start, end C.int64_t, out *C.int64_t) (rc C.int) {
	defer recovered(&rc)
	if out == nil {
		return eNull
	}
	*out = stopDelay
	r := getRun(h)
	if r == nil {
		return eHandle
	}
	if start < 0 || end < start {
		return eRange
	}
	r.mu.Lock()
	d, again := r.r.Next(time.Duration(start), time.Duration(end))
	r.mu.Unlock()
	if again {
		*out = C.int64_t(d)
	}
	return rcOK
}

//export recur_run_marshal
func recur_run_marshal(h C.recur_handle, buf **C.uint8_t, n *C.size_t) (rc C.int) {
	defer recovered(&rc)
	if buf != nil {
		*buf = nil
	}
	if n != nil {
		*n = 0
	}
	if buf == nil || n == nil {
		return eNull
	}
	r := getRun(h)
	if r == nil {
		return eHandle
	}
	r.mu.Lock()
	b, err := r.r.MarshalBinary()
	r.mu.Unlock()
	if err != nil {
		return eInternal // MarshalBinary fails on no state a run can reach
	}
	p := newCBytes(b)
	if p == nil {
		return eNoMem
	}
	*buf, *n = p, C.size_t(len(b))
	return rcOK
}

//export recur_run_resume
func recur_run_resume(policy C.recur_handle, buf *C.uint8_t, n C.size_t, out *C.recur_handle, errp **C.char) (rc C.int) {
	defer recoveredErr(&rc, errp)
	clearErr(errp)
	if out == nil {
		return report(errp, &failure{eNull, "run out-parameter is NULL"})
	}
	*out = 0
	if buf == nil {
		return report(errp, &failure{eNull, "state is NULL"})
	}
	p := getPolicy(policy)
	if p == nil {
		return report(errp, &failure{eHandle, "policy handle is 0, closed or of another kind"})
	}
	if n > maxState {
		return report(errp, &failure{eTooLong, "state is longer than the bound, RECUR_MAX_STATE bytes"})
	}
	b := C.GoBytes(unsafe.Pointer(buf), C.int(n))
	r := &run{r: interp.Start(p.s, 0)}
	if err := r.r.UnmarshalBinary(b); err != nil {
		return report(errp, &failure{eState, strings.TrimPrefix(err.Error(), "interp: ")})
	}
	h, put := handles.Put(kindRun, unsafe.Pointer(r))
	if !put {
		return report(errp, &failure{eLimit, "too many open handles"})
	}
	*out = C.recur_handle(h)
	return rcOK
}
