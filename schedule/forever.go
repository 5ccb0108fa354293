package schedule

import "log/slog"

// Forever always continues, with no delay. It is the identity of Intersect
// and absorbs Union: Intersect(a, Forever) ≡ a, Union(a, Forever) ≡ Forever.
type Forever struct{}

func (s Forever) String() string           { return "Forever" }
func (s Forever) GoString() string         { return "schedule.Forever{}" }
func (s Forever) LogValue() slog.Value     { return slog.StringValue(s.String()) }
func (s Forever) appendTo(b []byte) []byte { return append(b, "Forever"...) }
func (s Forever) appendGo(b []byte) []byte { return append(b, "schedule.Forever{}"...) }
func (s Forever) validate() *Error         { return nil }
