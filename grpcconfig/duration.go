package grpcconfig

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/recur-go/recur/internal/protodur"
)

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
	if !protodur.Digits(whole) || !protodur.Digits(frac) {
		return 0, fmt.Errorf("duration %q: want decimal seconds, such as \"0.1s\"", s)
	}
	if len(frac) > 9 {
		return 0, fmt.Errorf("duration %q has more than 9 digits after the point", s)
	}
	d, ok := protodur.Parts(neg, whole, frac)
	if !ok {
		return 0, fmt.Errorf("duration %q is out of range", s)
	}
	return d, nil
}

// duration is a time.Duration read from and written as protobuf JSON.
type duration time.Duration

func (d duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(protodur.Format(time.Duration(d)))
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
