package parse

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/recur-go/recur/schedule"
)

// The number parsers below take a Num token's text and return its value or
// a message for the error. None of them allocates on success.

// parseInt reads a decimal integer with an optional sign.
func parseInt(s string) (int, string) {
	neg, digits := sign(s)
	if digits == "" {
		return 0, "invalid integer " + quote(s)
	}
	var n uint64
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if !isDigit(c) {
			return 0, "invalid integer " + quote(s)
		}
		if n > (math.MaxInt-uint64(c-'0'))/10 {
			return 0, "integer " + clip(s) + " is out of range"
		}
		n = n*10 + uint64(c-'0')
	}
	if neg {
		return -int(n), ""
	}
	return int(n), ""
}

// parsePct reads a percentage: a decimal number with at most four digits
// after its point, and an optional trailing '%'. It returns the whole
// percent and the ten-thousandths of a percent above it (the fraction is
// never negative: -0.5% is -1% + 0.5%), as schedule.Exponential's
// FactorPct and FactorFrac hold them.
func parsePct(s string) (pct, frac int, msg string) {
	whole, digits, _ := strings.Cut(strings.TrimSuffix(s, "%"), ".")
	neg, w := sign(whole)
	if len(digits) > 4 {
		return 0, 0, "percentage " + clip(s) + " is finer than 0.0001%, the finest a factor holds"
	}
	n, m := parseInt(w)
	if m != "" || n > math.MaxInt-1 {
		return 0, 0, "percentage " + clip(s) + " is out of range"
	}
	for i := 0; i < 4; i++ {
		frac *= 10
		if i < len(digits) {
			frac += int(digits[i] - '0')
		}
	}
	if neg && frac > 0 {
		return -n - 1, schedule.PctFracs - frac, ""
	}
	if neg {
		return -n, 0, ""
	}
	return n, frac, ""
}

// isPlainDecimal reports whether s is an integer, or digits with a point
// and digits after it, without unit or '%'.
func isPlainDecimal(s string) bool {
	whole, digits, found := strings.Cut(s, ".")
	if !isPlainInt(whole) {
		return false
	}
	if !found {
		return true
	}
	if digits == "" {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if !isDigit(digits[i]) {
			return false
		}
	}
	return true
}

// isPlainInt reports whether s is an integer without unit or '%'.
func isPlainInt(s string) bool {
	_, digits := sign(s)
	if digits == "" {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if !isDigit(digits[i]) {
			return false
		}
	}
	return true
}

// parseDur reads a duration in Go syntax (1m30s, 1.5s, 250ms, 10µs), or a
// bare integer meaning milliseconds.
func parseDur(s string) (time.Duration, string) {
	if isPlainInt(s) {
		n, msg := parseInt(s)
		if msg != "" {
			return 0, "duration " + clip(s) + " (milliseconds) is out of range"
		}
		if n > int(math.MaxInt64/int64(time.Millisecond)) || n < int(math.MinInt64/int64(time.Millisecond)) {
			return 0, "duration " + clip(s) + " (milliseconds) is out of range"
		}
		return time.Duration(n) * time.Millisecond, ""
	}
	return goDuration(s)
}

// units maps each unit of Go's duration syntax to nanoseconds.
var units = [...]struct {
	name string
	ns   uint64
}{
	{"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"μs", 1e3}, {"ms", 1e6},
	{"s", 1e9}, {"m", 60e9}, {"h", 3600e9},
}

// goDuration parses s like time.ParseDuration, with messages that say what
// is wrong. It works in uint64 nanoseconds and rejects anything beyond the
// range of time.Duration.
func goDuration(orig string) (time.Duration, string) {
	neg, s := sign(orig)
	if s == "" {
		return 0, "invalid duration " + quote(orig)
	}
	var total uint64
	limit := uint64(math.MaxInt64)
	if neg {
		limit++
	}
	for s != "" {
		// The number: digits, optionally a fraction.
		var whole uint64
		i, overflow := 0, false
		for ; i < len(s) && isDigit(s[i]); i++ {
			if whole > (math.MaxUint64-9)/10 {
				overflow = true
			}
			whole = whole*10 + uint64(s[i]-'0')
		}
		intDigits := i
		frac, scale := uint64(0), 1.0
		if i < len(s) && s[i] == '.' {
			i++
			for ; i < len(s) && isDigit(s[i]); i++ {
				if frac > (1<<63-1)/10 {
					continue // as time.ParseDuration: further digits are ignored
				}
				frac = frac*10 + uint64(s[i]-'0')
				scale *= 10
			}
		}
		if i == 0 || intDigits == 0 && i == 1 {
			return 0, "invalid duration " + quote(orig)
		}
		// The unit: everything up to the next digit or '.'.
		j := i
		for j < len(s) && !isDigit(s[j]) && s[j] != '.' {
			j++
		}
		if j == i && j == len(s) {
			return 0, missingUnit(orig)
		}
		if j == i {
			return 0, "invalid duration " + quote(orig)
		}
		unit := s[i:j]
		ns := uint64(0)
		for _, u := range units {
			if u.name == unit {
				ns = u.ns
			}
		}
		if ns == 0 {
			msg := "unknown unit " + quote(unit) + " in duration " + quote(orig)
			if sug := suggestUnit(unit); sug != "" {
				msg += "; did you mean " + strconv.Quote(sug) + "?"
			}
			return 0, msg
		}
		if overflow || whole > limit/ns {
			return 0, "duration " + clip(orig) + " is out of range"
		}
		v := whole * ns
		if frac > 0 {
			v += uint64(float64(frac) * (float64(ns) / scale))
		}
		if v > limit || total > limit-v {
			return 0, "duration " + clip(orig) + " is out of range"
		}
		total += v
		s = s[j:]
	}
	if neg {
		return time.Duration(-int64(total-1)) - 1, "" // -MaxInt64-1 is in range
	}
	return time.Duration(total), ""
}

// suggestUnit returns the unit a mistyped one most likely meant.
func suggestUnit(u string) string {
	switch strings.ToLower(u) {
	case "sec", "secs", "second", "seconds":
		return "s"
	case "min", "mins", "minute", "minutes":
		return "m"
	case "hr", "hrs", "hour", "hours":
		return "h"
	case "msec", "msecs", "millis", "millisecond", "milliseconds":
		return "ms"
	case "usec", "micros", "microsecond", "microseconds":
		return "µs"
	case "nsec", "nanos", "nanosecond", "nanoseconds":
		return "ns"
	}
	if l := strings.ToLower(u); l != u {
		for _, x := range units {
			if x.name == l {
				return l
			}
		}
	}
	return ""
}

// sign splits an optional leading sign from s.
func sign(s string) (neg bool, rest string) {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		return s[0] == '-', s[1:]
	}
	return false, s
}

// missingUnit is the message for a duration without a unit, with the two
// likeliest meanings when the number is short enough to repeat.
func missingUnit(orig string) string {
	msg := "missing unit in duration " + quote(orig)
	if len(orig) <= MaxQuoted {
		msg += ", such as " + strconv.Quote(orig+"s") + " or " + strconv.Quote(orig+"ms")
	}
	return msg
}
