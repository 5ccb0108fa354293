package schedule

import "log/slog"

// Union continues while either A or B continues, with the shorter of the
// delays of those that continue. A child that stopped stays stopped, so
// Union(a, b) runs until both have stopped. Union is commutative,
// associative and idempotent; Times{1} is its identity and Forever absorbs
// it.
type Union struct {
	A, B Schedule
}

// String returns the canonical form, such as Union(Times(3), Spaced(1s)), which
// package parse reads back to an equal value.
func (s Union) String() string { return string(s.appendTo(make([]byte, 0, 64))) }

// GoString returns a Go expression that builds s, for %#v.
func (s Union) GoString() string { return string(s.appendGo(nil)) }

// LogValue logs s as its canonical form.
func (s Union) LogValue() slog.Value     { return slog.StringValue(s.String()) }
func (s Union) appendTo(b []byte) []byte { return appendPair(b, "Union(", s.A, s.B) }
func (s Union) appendGo(b []byte) []byte {
	return appendGoPair(b, "schedule.Union{A: ", ", B: ", s.A, s.B)
}

func (s Union) validate() *Error {
	if err := child("Union", "A", s.A); err != nil {
		return err
	}
	return child("Union", "B", s.B)
}

// appendPair appends open, a, ", ", b and ")".
func appendPair(b []byte, open string, x, y Schedule) []byte {
	b = appendChild(append(b, open...), x)
	return append(appendChild(append(b, ", "...), y), ')')
}

// appendGoPair appends a Go composite literal with two schedule fields.
func appendGoPair(b []byte, open, mid string, x, y Schedule) []byte {
	b = appendGoChild(append(b, open...), x)
	return append(appendGoChild(append(b, mid...), y), '}')
}
