package parse_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/parse"
)

func TestBareDurations(t *testing.T) {
	tests := []struct {
		src  string
		want []parse.BareDuration
	}{
		{"spaced(1)", []parse.BareDuration{{Offset: 7, Text: "1", Value: time.Millisecond}}},
		{"spaced(1s)", nil},
		// Counts and percentages are not durations.
		{"exponential(100, 200, 30000) & times(3)", []parse.BareDuration{
			{Offset: 12, Text: "100", Value: 100 * time.Millisecond},
			{Offset: 22, Text: "30000", Value: 30 * time.Second},
		}},
		{"Exponential(factor=200%, cap=+5, base=2)", []parse.BareDuration{
			{Offset: 29, Text: "+5", Value: 5 * time.Millisecond},
			{Offset: 38, Text: "2", Value: 2 * time.Millisecond},
		}},
		{"times(3) then spaced(1m) upto 90", []parse.BareDuration{{Offset: 30, Text: "90", Value: 90 * time.Millisecond}}},
		{"UpTo(Capped(spaced(2), 3), 4)", []parse.BareDuration{
			{Offset: 19, Text: "2", Value: 2 * time.Millisecond},
			{Offset: 23, Text: "3", Value: 3 * time.Millisecond},
			{Offset: 27, Text: "4", Value: 4 * time.Millisecond},
		}},
	}
	for _, tt := range tests {
		got, err := parse.BareDurations(tt.src)
		if err != nil {
			t.Errorf("BareDurations(%q): %v", tt.src, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("BareDurations(%q) (-want +got):\n%s", tt.src, diff)
		}
		for _, b := range got {
			if tt.src[b.Offset:b.Offset+len(b.Text)] != b.Text {
				t.Errorf("BareDurations(%q): %q is not at offset %d", tt.src, b.Text, b.Offset)
			}
		}
	}
}

func TestBareDurationsError(t *testing.T) {
	for _, src := range []string{"spaced(0)", "spaced(", "times(2s)", ""} {
		_, err := parse.BareDurations(src)
		_, want := parse.Parse(src)
		var perr *parse.Error
		if !errors.As(err, &perr) || err.Error() != want.Error() {
			t.Errorf("BareDurations(%q) error = %v; want %v", src, err, want)
		}
	}
}

func ExampleBareDurations() {
	spots, _ := parse.BareDurations("spaced(1) & times(3)")
	for _, s := range spots {
		fmt.Printf("at byte %d: %s means %v\n", s.Offset, s.Text, s.Value)
	}
	// Output:
	// at byte 7: 1 means 1ms
}
