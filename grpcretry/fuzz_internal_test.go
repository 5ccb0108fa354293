package grpcretry

import (
	"math/big"
	"testing"
	"time"

	"google.golang.org/grpc/metadata"
)

// FuzzPushback checks pushback on any trailer value, repeated 0 to 2
// times, and any cap: it never panics; no value asks for nothing;
// several values stop the retries (-1); one value is refused (-1), or,
// when it is a non-negative integer, asks for that many milliseconds cut
// to the cap.
func FuzzPushback(f *testing.F) {
	for _, v := range []string{"0", "250", "30000", "30001", "9000000000000", "-1", "+5", " 5", "1.5", "", "soon",
		"9223372036854775807", "9223372036854775808", "99999999999999999999", "0x10", "1e3"} {
		f.Add(v, uint8(1), int64(DefaultMaxPushback))
	}
	f.Add("10", uint8(2), int64(time.Second))
	f.Add("10", uint8(0), int64(time.Second))
	f.Fuzz(func(t *testing.T, v string, n uint8, limitNS int64) {
		limit := time.Duration(max(limitNS, 1)) // as the interceptor passes it: positive
		md := metadata.MD{}
		for range n % 3 {
			md.Append(PushbackHeader, v)
		}
		d, ok := pushback(md, limit)
		var want time.Duration
		switch n % 3 {
		case 0:
			if d != 0 || ok {
				t.Fatalf("no trailer: %v, %v; want 0, false", d, ok)
			}
			return
		case 2:
			want = -1
		default:
			want = reference(v, limit)
		}
		if !ok || d != want {
			t.Fatalf("pushback(%d × %q, %v) = %v, %v; want %v, true", n%3, v, limit, d, ok, want)
		}
		if d != -1 && (d < 0 || d > limit) {
			t.Fatalf("pushback(%q, %v) = %v: outside [0, cap]", v, limit, d)
		}
	})
}

// reference is what one value asks for, computed another way: an integer
// of any size, with an optional sign as strconv reads one; -1 for
// anything else, for a negative value, and for one past int64.
func reference(v string, limit time.Duration) time.Duration {
	ms, ok := new(big.Int).SetString(v, 10)
	if !ok || ms.Sign() < 0 || !ms.IsInt64() {
		return -1
	}
	ns := new(big.Int).Mul(ms, big.NewInt(int64(time.Millisecond)))
	if ns.Cmp(big.NewInt(int64(limit))) > 0 {
		return limit
	}
	return time.Duration(ns.Int64())
}
