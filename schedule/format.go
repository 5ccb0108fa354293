package schedule

import (
	"strconv"
	"time"
)

// appendDur appends d in Go's duration syntax, such as 1m30s.
func appendDur(b []byte, d time.Duration) []byte { return append(b, d.String()...) }

func appendPct(b []byte, n int) []byte {
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, '%')
}

// appendGoDur appends a Go expression for d using the largest unit that
// divides it exactly, such as 30*time.Second or 1500*time.Millisecond.
func appendGoDur(b []byte, d time.Duration) []byte {
	units := [...]struct {
		d    time.Duration
		name string
	}{
		{time.Hour, "time.Hour"},
		{time.Minute, "time.Minute"},
		{time.Second, "time.Second"},
		{time.Millisecond, "time.Millisecond"},
		{time.Microsecond, "time.Microsecond"},
	}
	for _, u := range units {
		if d != 0 && d%u.d == 0 {
			n := d / u.d
			if n == 1 {
				return append(b, u.name...)
			}
			b = strconv.AppendInt(b, int64(n), 10)
			b = append(b, '*')
			return append(b, u.name...)
		}
	}
	return strconv.AppendInt(b, int64(d), 10)
}

// appendGoChild appends a child's Go expression, or nil for a missing child.
func appendGoChild(b []byte, s Schedule) []byte {
	if s == nil {
		return append(b, "nil"...)
	}
	return s.appendGo(b)
}

// appendChild appends a child's canonical form, or <nil> for a missing child.
func appendChild(b []byte, s Schedule) []byte {
	if s == nil {
		return append(b, "<nil>"...)
	}
	return s.appendTo(b)
}

// AppendText appends the canonical form of s to b, like
// encoding.TextAppender, without the intermediate string of s.String().
func AppendText(b []byte, s Schedule) []byte { return appendChild(b, s) }

// GoString returns a Go expression that builds s, for %#v and for pasting
// a logged schedule into a test.
func GoString(s Schedule) string { return string(appendGoChild(nil, s)) }
