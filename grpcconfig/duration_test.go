package grpcconfig

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/internal/protodur"
	"pgregory.net/rapid"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"0.1s", 100 * time.Millisecond, ""},
		{"1s", time.Second, ""},
		{"1.500s", 1500 * time.Millisecond, ""},
		{".5s", 500 * time.Millisecond, ""},
		{"2.s", 2 * time.Second, ""},
		{"0.000000001s", 1, ""},
		{"-3s", -3 * time.Second, ""},
		{"0s", 0, ""},
		{"100ms", 0, `duration "100ms": want decimal seconds, such as "0.1s"`},
		{"1", 0, `duration "1": want seconds with an "s" suffix, such as "0.1s"`},
		{"s", 0, `duration "s" has no digits`},
		{".s", 0, `duration ".s" has no digits`},
		{"1.2.3s", 0, `duration "1.2.3s": want decimal seconds, such as "0.1s"`},
		{"+1s", 0, `duration "+1s": want decimal seconds, such as "0.1s"`},
		{"0.0000000001s", 0, `duration "0.0000000001s" has more than 9 digits after the point`},
		{"315576000001s", 0, `duration "315576000001s" is out of range`},
		// Past time.Duration, within protobuf: clamped as grpc-go does.
		{"9223372036.854775807s", math.MaxInt64, ""},
		{"9223372036.854775808s", math.MaxInt64, ""},
		{"9223372037s", math.MaxInt64, ""},
		{"9999999999s", math.MaxInt64, ""},
		{"315576000000.999999999s", math.MaxInt64, ""},
		{"-9223372036.854775807s", -math.MaxInt64, ""},
		{"-9223372036.854775808s", math.MinInt64, ""},
		{"-9999999999s", math.MinInt64, ""},
	}
	for _, tt := range tests {
		got, err := parseDuration(tt.in)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if got != tt.want || gotErr != tt.err {
			t.Errorf("parseDuration(%q) = %v, %q; want %v, %q", tt.in, got, gotErr, tt.want, tt.err)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	tests := []struct {
		in   time.Duration
		want string
	}{
		{time.Second, "1s"},
		{100 * time.Millisecond, "0.100s"},
		{1500 * time.Microsecond, "0.001500s"},
		{1, "0.000000001s"},
		{90 * time.Second, "90s"},
		{-2 * time.Second, "-2s"},
		{math.MaxInt64, "9223372036.854775807s"},
		{math.MinInt64, "-9223372036.854775808s"},
		{0, "0s"},
	}
	for _, tt := range tests {
		if got := protodur.Format(tt.in); got != tt.want {
			t.Errorf("protodur.Format(%v) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestPropDurationRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := time.Duration(rapid.Int64().Draw(t, "d")) // every Duration, MinInt64 and MaxInt64 too
		got, err := parseDuration(protodur.Format(d))
		if err != nil {
			t.Fatalf("parseDuration(protodur.Format(%d)): %v", d, err)
		}
		if diff := cmp.Diff(d, got); diff != "" {
			t.Fatalf("round trip of %q (-want +got):\n%s", protodur.Format(d), diff)
		}
	})
}

// TestParseClampsLongBackoff checks a whole service config with a
// maxBackoff that protobuf allows and time.Duration cannot hold: it is
// read as the longest time.Duration, as grpc-go reads it, and converts.
func TestParseClampsLongBackoff(t *testing.T) {
	sc, err := Parse([]byte(`{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.1s",
		"maxBackoff": "9999999999s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	rp := sc.Methods[0].RetryPolicy
	if rp.MaxBackoff != math.MaxInt64 {
		t.Errorf("MaxBackoff = %v; want the longest time.Duration", rp.MaxBackoff)
	}
	if _, err := rp.Schedule(FullJitter); err != nil {
		t.Errorf("Schedule: %v", err)
	}
}

// TestNilReceivers checks that unmarshalling into a nil pointer is an
// error, not a panic.
func TestNilReceivers(t *testing.T) {
	for name, err := range map[string]error{
		"Code":        (*Code)(nil).UnmarshalJSON([]byte(`"UNAVAILABLE"`)),
		"RetryPolicy": (*RetryPolicy)(nil).UnmarshalJSON([]byte(`{}`)),
	} {
		want := "grpcconfig: UnmarshalJSON into a nil *" + name
		if err == nil || err.Error() != want {
			t.Errorf("(*%s)(nil).UnmarshalJSON = %v; want %q", name, err, want)
		}
	}
}
