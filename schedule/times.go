package schedule

import (
	"log/slog"
	"strconv"
)

// Times allows at most N attempts in all, the first included, with no delay
// between them: it continues while its own step number k is below N.
// Times{5} is four retries. N must be at least 1; Times{1} is "never retry".
type Times struct {
	N int
}

// String returns the canonical form, such as Times(5), which
// package parse reads back to an equal value.
func (s Times) String() string { return string(s.appendTo(make([]byte, 0, 64))) }

// GoString returns a Go expression that builds s, for %#v.
func (s Times) GoString() string { return string(s.appendGo(nil)) }

// LogValue logs s as its canonical form.
func (s Times) LogValue() slog.Value { return slog.StringValue(s.String()) }

func (s Times) appendTo(b []byte) []byte {
	return append(strconv.AppendInt(append(b, "Times("...), int64(s.N), 10), ')')
}

func (s Times) appendGo(b []byte) []byte {
	b = strconv.AppendInt(append(b, "schedule.Times{N: "...), int64(s.N), 10)
	return append(b, '}')
}

func (s Times) validate() *Error {
	if s.N < 1 {
		return invalid("Times", s, "n "+strconv.Itoa(s.N)+" is below 1")
	}
	return nil
}
