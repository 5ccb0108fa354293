package grpcconfig

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// maxProtoSeconds is the largest number of seconds a protobuf Duration
// holds.
const maxProtoSeconds = 315_576_000_000

// parseDuration reads a duration in protobuf's JSON form, as service
// configs write them: decimal seconds with an "s" suffix and at most nine
// fractional digits, such as "0.1s", "1.500s" or "30s". A duration that
// protobuf allows (up to 315,576,000,000 seconds) but a time.Duration
// cannot hold is clamped to the longest (or most negative) time.Duration,
// as grpc-go reads service configs.
func parseDuration(s string) (time.Duration, error) {
	num, ok := strings.CutSuffix(s, "s")
	if !ok {
		return 0, fmt.Errorf("duration %q: want seconds with an \"s\" suffix, such as \"0.1s\"", s)
	}
	neg := false
	if rest, ok := strings.CutPrefix(num, "-"); ok {
		neg, num = true, rest
	}
	whole, frac, _ := strings.Cut(num, ".")
	if whole == "" && frac == "" {
		return 0, fmt.Errorf("duration %q has no digits", s)
	}
	if !digits(whole) || !digits(frac) {
		return 0, fmt.Errorf("duration %q: want decimal seconds, such as \"0.1s\"", s)
	}
	if len(frac) > 9 {
		return 0, fmt.Errorf("duration %q has more than 9 digits after the point", s)
	}
	var sec, ns int64
	if whole != "" {
		var err error
		if sec, err = strconv.ParseInt(whole, 10, 64); err != nil || sec > maxProtoSeconds {
			return 0, fmt.Errorf("duration %q is out of range", s)
		}
	}
	if frac != "" {
		ns, _ = strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
	}
	// Past what a time.Duration holds (about 292 years) but within
	// protobuf's range: saturate, as grpc-go does.
	if sec > (math.MaxInt64-ns)/int64(time.Second) {
		if neg {
			return math.MinInt64, nil
		}
		return math.MaxInt64, nil
	}
	d := time.Duration(sec)*time.Second + time.Duration(ns)
	if neg {
		d = -d
	}
	return d, nil
}

// digits reports whether s holds only ASCII digits (or nothing).
func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// formatDuration writes d in protobuf's JSON form, with 0, 3, 6 or 9
// fractional digits as protobuf does: "1s", "0.100s", "0.000001500s".
func formatDuration(d time.Duration) string {
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

// duration is a time.Duration read from and written as protobuf JSON.
type duration time.Duration

func (d duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(formatDuration(time.Duration(d)))
}

func (d *duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration %s: want a string such as \"0.1s\"", b)
	}
	v, err := parseDuration(s)
	if err != nil {
		return err
	}
	*d = duration(v)
	return nil
}
