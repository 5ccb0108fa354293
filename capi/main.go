// Command capi is recur's C ABI: built with -buildmode=c-shared or
// -buildmode=c-archive, it is librecur.so or librecur.a, whose interface
// is the hand-written recur.h in this directory (docs/c.md has the
// contract at length). It gives C, and anything with a C foreign-function
// interface, recur's policies (parse, print, explain, bounds and the pure
// delay function), runs of a policy stepped one decision at a time and
// saved between attempts, and guards: a circuit breaker, a retry budget
// and a retry policy for one target, made from a JSON config.
//
// Every exported function recovers from panics and returns an error
// code; handles are indices into a table with a generation per slot, so a
// stale handle is an error, never a crash (see internal/handle).
package main

import "github.com/recur-go/recur/capi/internal/handle"

// The kinds of handle: one given to a function that takes another kind is
// RECUR_E_HANDLE.
const (
	kindPolicy handle.Kind = iota + 1
	kindRun
	kindGuard
	kindCall
)

// handles is the library's handle table.
var handles handle.Table

func main() {}
