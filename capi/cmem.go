package main

/*
#define RECUR_BUILDING
#include <stdlib.h>
#include <string.h>
#include "recur.h"

// recur_malloc is malloc, which unlike cgo's C.malloc may return NULL:
// running out of memory for an output is RECUR_E_NOMEM, not an abort.
static void *recur_malloc(size_t n) { return malloc(n ? n : 1); }
*/
import "C"

import (
	"fmt"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// code is an error code of recur.h.
type code = C.int

const (
	rcOK            code = C.RECUR_OK
	eNull           code = C.RECUR_E_NULL
	eHandle         code = C.RECUR_E_HANDLE
	eUTF8           code = C.RECUR_E_UTF8
	eTooLong        code = C.RECUR_E_TOO_LONG
	eParse          code = C.RECUR_E_PARSE
	eConfig         code = C.RECUR_E_CONFIG
	eState          code = C.RECUR_E_STATE
	eRange          code = C.RECUR_E_RANGE
	eOpen           code = C.RECUR_E_OPEN
	eThrottled      code = C.RECUR_E_THROTTLED
	eInTx           code = C.RECUR_E_IN_TX
	eOrder          code = C.RECUR_E_ORDER
	eLimit          code = C.RECUR_E_LIMIT
	eNoMem          code = C.RECUR_E_NOMEM
	eInternal       code = C.RECUR_E_INTERNAL
	stopDelay            = C.RECUR_STOP
	maxPolicy            = C.RECUR_MAX_POLICY
	maxConfig            = C.RECUR_MAX_CONFIG
	maxState             = C.RECUR_MAX_STATE
	maxDelayAttempt      = C.RECUR_MAX_DELAY_ATTEMPT
)

// The C types of the exported functions, by names that the tests, which
// cannot use cgo, may call them with.
type (
	cHandle = C.recur_handle
	cInt64  = C.int64_t
	cUint64 = C.uint64_t
)

// failure is an error code with its message, for the functions that
// report one through char **err.
type failure struct {
	code code
	msg  string
}

// readText copies the NUL-terminated string at p, reading at most
// max+slack+1 bytes of it, and checks that it is valid UTF-8. max is the
// bound the caller states; slack is room for what the reader of the text
// skips (a policy's byte order mark), which it checks itself. what names
// the text in the messages ("policy", "config").
func readText(p *C.char, max, slack int, what string) (string, *failure) {
	if p == nil {
		return "", &failure{eNull, what + " is NULL"}
	}
	n := int(C.strnlen(p, C.size_t(max+slack+1)))
	if n > max+slack {
		return "", &failure{eTooLong, what + " is longer than " + strconv.Itoa(max) + " bytes"}
	}
	s := C.GoStringN(p, C.int(n))
	if !utf8.ValidString(s) {
		return "", &failure{eUTF8, what + " is not valid UTF-8 (at byte " + strconv.Itoa(invalidAt(s)) + ")"}
	}
	return s, nil
}

// invalidAt returns the offset of the first byte of s that is not valid
// UTF-8.
func invalidAt(s string) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return i
			}
		}
	}
	return len(s)
}

// newCString copies s into a NUL-terminated string from malloc, or nil
// when malloc fails.
func newCString(s string) *C.char {
	p := C.recur_malloc(C.size_t(len(s) + 1))
	if p == nil {
		return nil
	}
	b := unsafe.Slice((*byte)(p), len(s)+1)
	copy(b, s)
	b[len(s)] = 0
	return (*C.char)(p)
}

// newCBytes copies b into a buffer from malloc, or nil when malloc fails.
func newCBytes(b []byte) *C.uint8_t {
	p := C.recur_malloc(C.size_t(len(b)))
	if p == nil {
		return nil
	}
	copy(unsafe.Slice((*byte)(p), len(b)), b)
	return (*C.uint8_t)(p)
}

// setString stores a copy of s in *out: ok, or eNoMem.
func setString(out **C.char, s string) code {
	p := newCString(s)
	if p == nil {
		return eNoMem
	}
	*out = p
	return rcOK
}

// report stores f's message in *errp when errp is not NULL, and returns
// f's code. A message that cannot be allocated is left out: the code
// says enough.
func report(errp **C.char, f *failure) code {
	if errp != nil {
		*errp = newCString(f.msg)
	}
	return f.code
}

// clearErr sets *errp to NULL when errp is not NULL.
func clearErr(errp **C.char) {
	if errp != nil {
		*errp = nil
	}
}

// recovered is deferred by every exported function, first thing: a
// panic inside becomes RECUR_E_INTERNAL instead of crossing into C,
// which would abort the process.
func recovered(rc *code) {
	if recover() != nil {
		*rc = eInternal
	}
}

// recoveredErr is recovered for the functions with a char **err: the
// panic's text goes there, so that a report of the bug can quote it.
func recoveredErr(rc *code, errp **C.char) {
	if r := recover(); r != nil {
		*rc = eInternal
		if errp != nil && *errp == nil {
			*errp = newCString("recur: internal error (please report it): " + panicText(r))
		}
	}
}

// panicText describes a recovered panic value.
func panicText(r any) string { return fmt.Sprint(r) }

// freeCString frees a string from newCString.
func freeCString(p *C.char) { C.free(unsafe.Pointer(p)) }
