package suggest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClosest(t *testing.T) {
	names := []string{"backoff", "fulljitter", "times", "then", "upto", "propagates_deadline"}
	for _, tc := range []struct{ word, want string }{
		{"backof", "backoff"},
		{"BACKOFF", "backoff"},
		{"tmes", "times"},
		{"thne", "then"}, // a swap is two edits; "then" is within three
		{"propagates_deadlin", "propagates_deadline"},
		{"x", ""}, // one letter allows one edit: nothing is that close
		{"zzzzzzzz", ""},
		{strings.Repeat("a", 65), ""},
	} {
		if diff := cmp.Diff(tc.want, Closest(tc.word, names)); diff != "" {
			t.Errorf("Closest(%q) (-want +got):\n%s", tc.word, diff)
		}
	}
	// Ties go to the earliest candidate.
	if diff := cmp.Diff("abc", Closest("abd", []string{"abc", "abe"})); diff != "" {
		t.Errorf("tie (-want +got):\n%s", diff)
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"abc", "abc", 0},
		{"abcdef", "a", 4}, // over the limit of 3: limit+1
	} {
		if got := distance(tc.a, tc.b, 3); got != tc.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
