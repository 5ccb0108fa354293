package schedule

import "log/slog"

// Intersect continues while both A and B continue, with the longer of their
// delays. Intersect{Backoff(…), Times{5}} is "back off, but no more than five
// attempts". Intersect is commutative, associative and idempotent; Forever
// is its identity and Times{1} absorbs it.
type Intersect struct {
	A, B Schedule
}

// String returns the canonical form, such as Intersect(Times(3), Spaced(1s)), which
// package parse reads back to an equal value.
func (s Intersect) String() string { return string(s.appendTo(make([]byte, 0, 64))) }

// GoString returns a Go expression that builds s, for %#v.
func (s Intersect) GoString() string { return string(s.appendGo(nil)) }

// LogValue logs s as its canonical form.
func (s Intersect) LogValue() slog.Value     { return slog.StringValue(s.String()) }
func (s Intersect) appendTo(b []byte) []byte { return appendPair(b, "Intersect(", s.A, s.B) }
func (s Intersect) appendGo(b []byte) []byte {
	return appendGoPair(b, "schedule.Intersect{A: ", ", B: ", s.A, s.B)
}

func (s Intersect) validate() *Error {
	if err := child("Intersect", "A", s.A); err != nil {
		return err
	}
	return child("Intersect", "B", s.B)
}
