package parse

import (
	"strconv"
	"time"

	"github.com/recur-go/recur/schedule"
)

// Style selects the form Format prints. Both forms parse back to an equal
// schedule.
type Style uint8

const (
	// Canonical is the constructor form of schedule.Schedule's String
	// method, one call per node:
	//
	//	Intersect(Jittered(Exponential(100ms, 200%, 30s), 50%, 100%), Times(5))
	Canonical Style = iota
	// Infix is the form for people: the operators +, &, |, then and upto,
	// the helpers backoff and fulljitter where they match exactly, and
	// lower-case names:
	//
	//	backoff(100ms, 30s) & times(5)
	Infix
)

// String returns the style's name.
func (st Style) String() string {
	if st == Infix {
		return "Infix"
	}
	return "Canonical"
}

// Format returns s printed in the given style. A nil schedule prints as
// <nil>, which does not parse.
func Format(s schedule.Schedule, style Style) string {
	return string(AppendFormat(make([]byte, 0, 64), s, style))
}

// AppendFormat appends s printed in the given style to b and returns the
// extended buffer. It allocates only to grow b.
func AppendFormat(b []byte, s schedule.Schedule, style Style) []byte {
	if style == Infix {
		return appendInfix(b, s, precUpTo)
	}
	return schedule.AppendText(b, s)
}

// Binding strength of the infix forms, loosest first. A node printed where
// a stronger one is required is put in parentheses.
const (
	precUpTo  = iota // x upto 30s: a whole policy or argument
	precThen         // a then b, nested to the right
	precUnion        // a | b, nested to the left
	precInter        // a & b, nested to the left
	precSum          // a + b, nested to the left
	precAtom         // a call or a parenthesized policy
)

func prec(s schedule.Schedule) int {
	switch s.(type) {
	case schedule.UpTo:
		return precUpTo
	case schedule.AndThen:
		return precThen
	case schedule.Union:
		return precUnion
	case schedule.Intersect:
		return precInter
	case schedule.Sum:
		return precSum
	case schedule.Capped, schedule.Decorrelated, schedule.DecorrelatedV2, schedule.Exponential, schedule.Fibonacci, schedule.Forever, schedule.Jittered, schedule.Linear, schedule.Random, schedule.ResetAfter, schedule.Spaced, schedule.Times, schedule.WhileBelow:
		// These take the path after the switch.
	}
	return precAtom
}

// appendInfix appends s in infix form, in parentheses if it binds less
// tightly than min.
func appendInfix(b []byte, s schedule.Schedule, min int) []byte {
	if s == nil {
		return append(b, "<nil>"...)
	}
	if prec(s) < min {
		b = append(b, '(')
		b = appendInfix(b, s, precUpTo)
		return append(b, ')')
	}
	switch s := s.(type) {
	case schedule.UpTo:
		b = appendInfix(b, s.Inner, precThen)
		return appendDur(append(b, " upto "...), s.Budget)
	case schedule.AndThen:
		b = appendInfix(b, s.First, precUnion)
		return appendInfix(append(b, " then "...), s.Then, precThen)
	case schedule.Union:
		b = appendInfix(b, s.A, precUnion)
		return appendInfix(append(b, " | "...), s.B, precInter)
	case schedule.Intersect:
		b = appendInfix(b, s.A, precInter)
		return appendInfix(append(b, " & "...), s.B, precSum)
	case schedule.Sum:
		b = appendInfix(b, s.A, precSum)
		return appendInfix(append(b, " + "...), s.B, precAtom)
	case schedule.Linear:
		b = appendDur(append(b, "linear("...), s.Base)
		if s.Step != s.Base {
			b = appendDur(append(b, ", "...), s.Step)
		}
		return append(b, ')')
	case schedule.DecorrelatedV2:
		return append(appendDur(append(b, "decorrelatedv2("...), s.Base), ')')
	case schedule.Random:
		b = appendDur(append(b, "random("...), s.Lo)
		return append(appendDur(append(b, ", "...), s.Hi), ')')
	case schedule.ResetAfter:
		b = appendInfix(append(b, "resetafter("...), s.Inner, precUpTo)
		return append(appendDur(append(b, ", "...), s.After), ')')
	case schedule.WhileBelow:
		b = appendInfix(append(b, "whilebelow("...), s.Inner, precUpTo)
		return append(appendDur(append(b, ", "...), s.Limit), ')')
	case schedule.Times:
		return append(strconv.AppendInt(append(b, "times("...), int64(s.N), 10), ')')
	case schedule.Spaced:
		return append(appendDur(append(b, "spaced("...), s.Every), ')')
	case schedule.Exponential:
		b = appendDur(append(b, "exponential("...), s.Base)
		b = schedule.AppendPercent(append(b, ", "...), s.FactorPct, s.FactorFrac)
		return append(appendDur(append(b, ", "...), s.Cap), ')')
	case schedule.Fibonacci:
		return append(appendDur(append(b, "fibonacci("...), s.Base), ')')
	case schedule.Jittered:
		if e, ok := s.Inner.(schedule.Exponential); ok && e.FactorPct == 200 && e.FactorFrac == 0 && s.HighPct == 100 && s.HighFrac == 0 && (s.LowPct == 50 || s.LowPct == 0) && s.LowFrac == 0 {
			name := "backoff("
			if s.LowPct == 0 {
				name = "fulljitter("
			}
			b = appendDur(append(b, name...), e.Base)
			return append(appendDur(append(b, ", "...), e.Cap), ')')
		}
		b = appendInfix(append(b, "jittered("...), s.Inner, precUpTo)
		b = schedule.AppendPercent(append(b, ", "...), s.LowPct, s.LowFrac)
		return append(schedule.AppendPercent(append(b, ", "...), s.HighPct, s.HighFrac), ')')
	case schedule.Forever:
		return append(b, "forever"...)
	case schedule.Capped:
		b = appendInfix(append(b, "capped("...), s.Inner, precUpTo)
		return append(appendDur(append(b, ", "...), s.Max), ')')
	case schedule.Decorrelated:
		b = appendDur(append(b, "decorrelated("...), s.Base)
		return append(appendDur(append(b, ", "...), s.Cap), ')')
	}
	return schedule.AppendText(b, s) // a variant this printer does not know yet
}

// appendDur appends d in Go's syntax; d.String does not allocate here.
func appendDur(b []byte, d time.Duration) []byte { return append(b, d.String()...) }
