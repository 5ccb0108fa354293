package schedule

import "log/slog"

// Sum continues while both A and B continue, and waits the sum of their
// delays, saturating at MaxDuration: tenacity's wait_a + wait_b and
// retry-go's CombineDelay. Sum is commutative and associative; Forever,
// which continues always and waits nothing, is its identity, and Times{1}
// absorbs it. It is not idempotent: a + a waits twice as long. A Times
// inside a Sum bounds the attempts as in an Intersect, adding no wait:
// Sum(a, Times(n)) ≡ Intersect(a, Times(n)). The language writes it a + b.
type Sum struct {
	A, B Schedule
}

// String returns the canonical form, such as Sum(Linear(1s, 1s), Random(0s, 1s)),
// which package parse reads back to an equal value.
func (s Sum) String() string { return string(s.appendTo(make([]byte, 0, 64))) }

// GoString returns a Go expression that builds s, for %#v.
func (s Sum) GoString() string { return string(s.appendGo(nil)) }

// LogValue logs s as its canonical form.
func (s Sum) LogValue() slog.Value     { return slog.StringValue(s.String()) }
func (s Sum) appendTo(b []byte) []byte { return appendPair(b, "Sum(", s.A, s.B) }
func (s Sum) appendGo(b []byte) []byte {
	return appendGoPair(b, "schedule.Sum{A: ", ", B: ", s.A, s.B)
}

func (s Sum) validate() *Error {
	if err := child("Sum", "A", s.A); err != nil {
		return err
	}
	return child("Sum", "B", s.B)
}
