package httpretry

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryAfter reads a Retry-After value (RFC 9110, section 10.2.3): a
// number of seconds, or an HTTP-date, which is read against now. It
// returns false for an empty value, and a negative duration — the
// runner's "do not retry" — for a value it cannot read or one that asks
// for more than limit. A date in the past asks for no wait.
func retryAfter(v string, limit time.Duration, now func() time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	var d time.Duration
	if isDigits(v) {
		secs, err := strconv.ParseUint(v, 10, 64)
		if err != nil || secs > math.MaxInt64/uint64(time.Second) {
			return -1, true // too many digits: more than any limit
		}
		d = time.Duration(secs) * time.Second
	} else {
		t, err := http.ParseTime(v)
		if err != nil {
			return -1, true
		}
		d = t.Sub(now())
		if d < 0 {
			d = 0
		}
	}
	if d > limit {
		return -1, true
	}
	return d, true
}

// isDigits reports whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
