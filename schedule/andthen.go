package schedule

import "log/slog"

// AndThen follows First until it stops; at that same decision Then starts
// and decides, with its own start at the beginning of the attempt that
// ended First. AndThen{Times{3}, Spaced{time.Minute}} is "try hard three
// times, then once a minute". AndThen is associative and Times{1} is its
// identity on either side.
type AndThen struct {
	First, Then Schedule
}

// String returns the canonical form, such as AndThen(Times(3), Spaced(1m0s)), which
// package parse reads back to an equal value.
func (s AndThen) String() string { return string(s.appendTo(make([]byte, 0, 64))) }

// GoString returns a Go expression that builds s, for %#v.
func (s AndThen) GoString() string { return string(s.appendGo(nil)) }

// LogValue logs s as its canonical form.
func (s AndThen) LogValue() slog.Value     { return slog.StringValue(s.String()) }
func (s AndThen) appendTo(b []byte) []byte { return appendPair(b, "AndThen(", s.First, s.Then) }
func (s AndThen) appendGo(b []byte) []byte {
	return appendGoPair(b, "schedule.AndThen{First: ", ", Then: ", s.First, s.Then)
}

func (s AndThen) validate() *Error {
	if err := child("AndThen", "First", s.First); err != nil {
		return err
	}
	return child("AndThen", "Then", s.Then)
}
