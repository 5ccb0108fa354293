package main

/*
#define RECUR_BUILDING
#include "recur.h"
*/
import "C"

import "runtime"

//export recur_allocs
func recur_allocs(count, bytes *C.uint64_t) (rc C.int) {
	defer recovered(&rc)
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if count != nil {
		*count = C.uint64_t(m.Mallocs)
	}
	if bytes != nil {
		*bytes = C.uint64_t(m.TotalAlloc)
	}
	return rcOK
}

//export recur_close
func recur_close(h C.recur_handle) (rc C.int) {
	defer recovered(&rc)
	obj, k := handles.Del(uint64(h))
	if obj == nil {
		return eHandle
	}
	if k == kindCall {
		c := (*call)(obj)
		c.mu.Lock()
		c.abandon()
		c.mu.Unlock()
	}
	return rcOK
}
