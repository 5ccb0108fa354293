package protodur_test

import (
	"math"
	"testing"
	"time"

	"github.com/recur-go/recur/internal/protodur"
)

func TestPartsAndFormat(t *testing.T) {
	for _, tt := range []struct {
		neg         bool
		whole, frac string
		want        time.Duration
		text        string
	}{
		{false, "1", "", time.Second, "1s"},
		{false, "0", "1", 100 * time.Millisecond, "0.100s"},
		{false, "", "0000015", 1500 * time.Nanosecond, "0.000001500s"},
		{true, "2", "5", -2500 * time.Millisecond, "-2.500s"},
		{false, "315576000000", "", math.MaxInt64, "9223372036.854775807s"},
		{true, "315576000000", "", math.MinInt64, "-9223372036.854775808s"},
	} {
		got, ok := protodur.Parts(tt.neg, tt.whole, tt.frac)
		if !ok || got != tt.want {
			t.Errorf("Parts(%v, %q, %q) = %v, %v; want %v", tt.neg, tt.whole, tt.frac, got, ok, tt.want)
		}
		if s := protodur.Format(got); s != tt.text {
			t.Errorf("Format(%v) = %q, want %q", got, s, tt.text)
		}
	}
	if _, ok := protodur.Parts(false, "315576000001", ""); ok {
		t.Error("Parts past MaxSeconds: ok")
	}
	if protodur.Digits("12a") || !protodur.Digits("") || !protodur.Digits("0123") {
		t.Error("Digits")
	}
}
