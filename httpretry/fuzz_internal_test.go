package httpretry

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzRetryAfter checks retryAfter on any header value and cap: it never
// panics; an empty value asks for nothing; any other value is refused
// (-1) or asks for a wait between 0 and the cap; a number of seconds
// asks for exactly that many.
func FuzzRetryAfter(f *testing.F) {
	for _, v := range []string{"", " ", "0", "30", "31", " 7 ", "-1", "+5", "1.5", "99999999999999999999",
		"9223372036", "Wed, 21 Oct 2015 07:28:00 GMT", "Sun, 06 Nov 2994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
		"Sun Nov  6 08:49:37 1994", "\x00", "0x10"} {
		f.Add(v, int64(30))
	}
	f.Add("3600", int64(1<<62))
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string, capSecs int64) {
		limit := time.Duration(max(capSecs, 1)%(1<<33)) * time.Second // as MaxPushback: positive
		d, ok := retryAfter(v, limit, func() time.Time { return now })
		if strings.TrimSpace(v) == "" {
			if d != 0 || ok {
				t.Fatalf("retryAfter(%q) = %v, %v; want 0, false", v, d, ok)
			}
			return
		}
		if !ok || (d != -1 && (d < 0 || d > limit)) {
			t.Fatalf("retryAfter(%q, %v) = %v, %v; want -1 or a wait in [0, %v]", v, limit, d, ok, limit)
		}
		if secs, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64); err == nil && isDigits(strings.TrimSpace(v)) {
			want := time.Duration(-1)
			if secs <= uint64(limit/time.Second) {
				want = time.Duration(secs) * time.Second
			}
			if d != want {
				t.Fatalf("retryAfter(%q, %v) = %v; want %v", v, limit, d, want)
			}
		}
	})
}
