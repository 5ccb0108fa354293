// Package protodur reads and writes protobuf's JSON form of a Duration
// ("0.1s", "1.500s", "-2s"), which gRPC service configs, Temporal's and
// Envoy's configs use. Each caller checks the text's syntax in its own
// words (grpcconfig reads ".5s" as grpc-go does; convert follows
// protojson, which wants a whole part), then hands the parts to Parts.
//
// Its users are grpcconfig and convert. It imports nothing of the module.
package protodur

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// MaxSeconds is the largest number of seconds a protobuf Duration holds.
const MaxSeconds = 315_576_000_000

// Digits reports whether s holds only ASCII digits (or nothing).
func Digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Parts returns the duration of whole seconds and frac, its fractional
// digits (at most 9), both already checked to be Digits, negated if neg.
// It reports false when whole is past MaxSeconds. A duration that
// protobuf allows but a time.Duration cannot hold saturates at the
// longest (or most negative) time.Duration, as grpc-go and durationpb's
// AsDuration do.
func Parts(neg bool, whole, frac string) (time.Duration, bool) {
	var sec, ns int64
	if whole != "" {
		var err error
		if sec, err = strconv.ParseInt(whole, 10, 64); err != nil || sec > MaxSeconds {
			return 0, false
		}
	}
	if frac != "" {
		ns, _ = strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
	}
	if sec > (math.MaxInt64-ns)/int64(time.Second) {
		if neg {
			return math.MinInt64, true
		}
		return math.MaxInt64, true
	}
	d := time.Duration(sec)*time.Second + time.Duration(ns)
	if neg {
		d = -d
	}
	return d, true
}

// Format writes d as protobuf JSON does, with 0, 3, 6 or 9 fractional
// digits: "1s", "0.100s", "0.000001500s".
func Format(d time.Duration) string {
	var b []byte
	u := uint64(d) // MinInt64 too: its magnitude fits in a uint64
	if d < 0 {
		b = append(b, '-')
		u = -u
	}
	b = strconv.AppendUint(b, u/uint64(time.Second), 10)
	if ns := u % uint64(time.Second); ns != 0 {
		frac := fmt.Sprintf("%09d", ns)
		switch {
		case ns%1e6 == 0:
			frac = frac[:3]
		case ns%1e3 == 0:
			frac = frac[:6]
		}
		b = append(append(b, '.'), frac...)
	}
	return string(append(b, 's'))
}
