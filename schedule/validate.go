package schedule

import (
	"fmt"
	"strconv"
	"time"
)

// Error reports an invalid node of a schedule.
type Error struct {
	// Path names the node from the root: variant names joined by the
	// fields that lead to the next one, such as "Intersect.A.Jittered".
	Path string
	// Fields lists just the fields from the root to the node, such as
	// ["A"]; it is empty for the root. Package parse uses it to point at
	// the node's place in the source.
	Fields []string
	// Node is the invalid node, or nil when a child is missing.
	Node Schedule
	// Msg says what is wrong, such as "low 120% above high 100%".
	Msg string
}

// Error returns the path and the message, such as
// "Intersect.A.Jittered: low 120% above high 100%".
func (e *Error) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// Validate checks every node of s and returns nil, or an *Error for the
// first invalid node in depth-first order.
func Validate(s Schedule) error {
	if s == nil {
		return &Error{Msg: "missing schedule"}
	}
	if err := check(s); err != nil {
		return err
	}
	return nil
}

// check validates s after making sure it is a variant and not a value
// that merely embeds one: a type that embeds a Schedule, such as
// parse.Policy, satisfies the interface through the promoted methods.
func check(s Schedule) *Error {
	switch s.(type) {
	case Times, Spaced, Exponential, Fibonacci, Jittered, Union, Intersect, AndThen, UpTo, Forever, Capped, Decorrelated, Linear, Random, Sum, WhileBelow, DecorrelatedV2, ResetAfter:
	default:
		return &Error{Node: s, Msg: fmt.Sprintf("%T is not a schedule variant; pass the schedule it holds (for a parse.Policy p, p.Schedule)", s)}
	}
	return s.validate()
}

// invalid returns the error for node s of the given variant name.
func invalid(name string, s Schedule, msg string) *Error {
	return &Error{Path: name, Node: s, Msg: msg}
}

// child validates the child held in field of a parent of the given variant
// name, and prefixes the parent to the path of any error.
func child(name, field string, s Schedule) *Error {
	var err *Error
	if s == nil {
		err = &Error{Msg: "missing schedule"}
	} else if err = check(s); err == nil {
		return nil
	}
	if err.Path == "" {
		err.Path = name + "." + field
	} else {
		err.Path = name + "." + field + "." + err.Path
	}
	err.Fields = append([]string{field}, err.Fields...)
	return err
}

// positive returns the complaint about a duration field that is not above
// zero, or "". Validators build the *Error only on failure, so that
// validating a valid schedule allocates nothing.
func positive(field string, d time.Duration) string {
	if d <= 0 {
		return field + " " + d.String() + " is not positive"
	}
	return ""
}

// nonNegative returns the complaint about a negative duration field, or "".
func nonNegative(field string, d time.Duration) string {
	if d < 0 {
		return field + " " + d.String() + " is negative"
	}
	return ""
}

func pct(n int) string { return strconv.Itoa(n) + "%" }

// pctFrac is pct for a percentage with a fraction.
func pctFrac(n, frac int) string { return string(AppendPercent(nil, n, frac)) }

// badFrac returns the complaint about a fraction field out of its range,
// or "".
func badFrac(field string, frac int) string {
	if frac < 0 || frac >= PctFracs {
		return field + " fraction " + strconv.Itoa(frac) + " is outside [0, 9999] ten-thousandths of a percent"
	}
	return ""
}
