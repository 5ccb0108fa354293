package schedule

import "log/slog"

// Forever always continues, with no delay. It is the identity of Intersect
// and absorbs Union: Intersect(a, Forever) ≡ a, Union(a, Forever) ≡ Forever.
type Forever struct{}

// String returns the canonical form, such as Forever, which
// package parse reads back to an equal value.
func (s Forever) String() string { return "Forever" }

// GoString returns a Go expression that builds s, for %#v.
func (s Forever) GoString() string { return "schedule.Forever{}" }

// LogValue logs s as its canonical form.
func (s Forever) LogValue() slog.Value     { return slog.StringValue(s.String()) }
func (s Forever) appendTo(b []byte) []byte { return append(b, "Forever"...) }
func (s Forever) appendGo(b []byte) []byte { return append(b, "schedule.Forever{}"...) }
func (s Forever) validate() *Error         { return nil }
