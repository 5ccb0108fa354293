// Package edges probes what each library's backoff delay does at the edges:
// after 100, 10 000 and 10⁷ steps with no cap and with a cap at the largest
// Duration, and with a zero base. A delay can come out negative (a
// float-to-int conversion or a shift that overflowed), zero (a retry loop
// with no wait: a hot loop), a panic, or saturated (held at the cap or the
// library's maximum, which is what it should do).
//
// Every probe runs the library's own code: its exported delay function, or
// for failsafe-go, whose delay computation is unexported, its retry
// executor driven by an execution that is already cancelled, so no timer
// is ever waited for (see failsafe.go).
package edges

import (
	"fmt"
	"time"
)

// Case is one library configured one way.
type Case struct {
	Lib    string // library
	Config string // its configuration, as Go
	Cap    string // "none" or "max" (the largest Duration), with a word on what that means for this library
	Note   string // why the library behaves as it does, from its source
	// New starts a run: each call of next computes the delay before the
	// next retry, one step, and may panic; stop, if not nil, ends the run.
	New func() (next func() time.Duration, stop func())
}

// Outcome is what one step gave: a delay, or a panic.
type Outcome struct {
	Delay time.Duration
	Panic string // the recovered panic value, or ""
}

// Result is what a probe saw.
type Result struct {
	Case  Case
	At    map[int64]Outcome // the outcome at each step asked for
	Steps int64             // steps run in all

	// Over all steps: how many were negative, zero, or panicked, and the
	// first step of each (0 if never).
	Negative, Zero, Panics               int64
	FirstNegative, FirstZero, FirstPanic int64
	// FirstMax is the first step whose delay was the largest Duration.
	FirstMax int64
}

// Probe runs c for the largest of steps and records the outcome at each
// of them. A panicking step is recovered and the run goes on.
func Probe(c Case, steps ...int64) Result {
	res := Result{Case: c, At: make(map[int64]Outcome, len(steps))}
	want := make(map[int64]bool, len(steps))
	for _, s := range steps {
		want[s] = true
		res.Steps = max(res.Steps, s)
	}
	next, stop := c.New()
	if stop != nil {
		defer stop()
	}
	for i := int64(1); i <= res.Steps; i++ {
		o := step(next)
		switch {
		case o.Panic != "":
			res.Panics++
			if res.FirstPanic == 0 {
				res.FirstPanic = i
			}
		case o.Delay < 0:
			res.Negative++
			if res.FirstNegative == 0 {
				res.FirstNegative = i
			}
		case o.Delay == 0:
			res.Zero++
			if res.FirstZero == 0 {
				res.FirstZero = i
			}
		case o.Delay == maxDuration && res.FirstMax == 0:
			res.FirstMax = i
		}
		if want[i] {
			res.At[i] = o
		}
	}
	return res
}

const maxDuration = time.Duration(1<<63 - 1)

// step calls next once, turning a panic into an Outcome.
func step(next func() time.Duration) (o Outcome) {
	defer func() {
		if p := recover(); p != nil {
			o = Outcome{Panic: fmt.Sprint(p)}
		}
	}()
	return Outcome{Delay: next()}
}

// ZeroBase is what a library does when the base delay is zero.
type ZeroBase struct {
	Lib    string
	Config string
	Note   string // why, from the library's source
	// Try builds the library's backoff with a zero base and takes steps
	// delays from it: err is a construction error, if the library reports
	// one, and a panic is recovered into Panic.
	Try func(steps int) (delays []time.Duration, err error)
}

// ZeroOutcome is what ZeroBase.Try did.
type ZeroOutcome struct {
	Delays []time.Duration
	Err    error
	Panic  string
}

// TryZero runs z for steps steps.
func TryZero(z ZeroBase, steps int) (o ZeroOutcome) {
	defer func() {
		if p := recover(); p != nil {
			o.Panic = fmt.Sprint(p)
		}
	}()
	o.Delays, o.Err = z.Try(steps)
	return o
}
