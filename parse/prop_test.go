package parse_test

import (
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
	"pgregory.net/rapid"
)

// TestPropRoundTrip checks the law Parse(s.String()) == s over generated
// schedules of every variant, nested.
func TestPropRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSchedule().Draw(t, "s")
		got, err := parse.Parse(s.String())
		if err != nil {
			t.Fatalf("Parse(%q): %v", s.String(), err)
		}
		if got != s {
			t.Fatalf("Parse(%q) = %v, want %v", s.String(), got, s)
		}
	})
}

// TestPropInfixRoundTrip checks that the infix form parses back to the
// same value, and that printing is idempotent in both styles.
func TestPropInfixRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSchedule().Draw(t, "s")
		infix := parse.Format(s, parse.Infix)
		got, err := parse.Parse(infix)
		if err != nil {
			t.Fatalf("Parse(%q): %v", infix, err)
		}
		if got != s {
			t.Fatalf("Parse(%q) = %v, want %v", infix, got, s)
		}
		if again := parse.Format(got, parse.Infix); again != infix {
			t.Fatalf("Format is not idempotent: %q, then %q", infix, again)
		}
		if canon := parse.Format(s, parse.Canonical); canon != s.String() {
			t.Fatalf("Format(s, Canonical) = %q, want s.String() = %q", canon, s.String())
		}
	})
}

// word matches a name in canonical form, and not the units of durations.
var word = regexp.MustCompile(`[A-Za-z]+\(|Forever`)

// TestPropSpellings checks that the same schedule parses from its canonical
// form rewritten the way people write it: other letter case, named
// arguments, spaces, newlines and comments.
func TestPropSpellings(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSchedule().Draw(t, "s")
		src := s.String()
		switch rapid.IntRange(0, 3).Draw(t, "how") {
		case 0:
			src = word.ReplaceAllStringFunc(src, strings.ToLower)
		case 1:
			src = word.ReplaceAllStringFunc(src, strings.ToUpper)
		case 2:
			src = strings.ReplaceAll(src, ", ", " ,\n  # comment\n\t")
		default:
			src = strings.ReplaceAll(strings.ReplaceAll(src, "(", " ( "), ")", " ) ")
		}
		got, err := parse.Parse(src)
		if err != nil {
			t.Fatalf("Parse(%q): %v", src, err)
		}
		if got != s {
			t.Fatalf("Parse(%q) = %v, want %v", src, got, s)
		}
	})
}

// TestPropDurations checks the duration reader against the standard
// library: every Duration's String parses back to it, and any text that
// time.ParseDuration reads (with a unit) means the same here.
func TestPropDurations(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := time.Duration(rapid.OneOf(
			rapid.Int64(),
			rapid.Int64Range(math.MaxInt64-1000, math.MaxInt64),
			rapid.Int64Range(math.MinInt64, math.MinInt64+1000),
			rapid.Int64Range(-1e12, 1e12),
		).Draw(t, "d"))
		got, err := parse.Parse("Capped(Forever, " + d.String() + ")")
		if d < 0 {
			if err == nil {
				t.Fatalf("negative max %v accepted", d)
			}
		} else if err != nil {
			t.Fatalf("Capped(Forever, %v): %v", d, err)
		} else if want := (schedule.Capped{Inner: schedule.Forever{}, Max: d}); got != want {
			t.Fatalf("Capped(Forever, %v) = %v", d, got)
		}

		// Random text in duration syntax, compared with time.ParseDuration.
		var b strings.Builder
		if rapid.Bool().Draw(t, "neg") {
			b.WriteByte('-')
		}
		for range rapid.IntRange(1, 4).Draw(t, "parts") {
			b.WriteString(rapid.StringMatching(`[0-9]{1,20}(\.[0-9]{0,25})?`).Draw(t, "num"))
			b.WriteString(rapid.SampledFrom([]string{"ns", "us", "µs", "μs", "ms", "s", "m", "h"}).Draw(t, "unit"))
		}
		text := b.String()
		want, werr := time.ParseDuration(text)
		got, err = parse.Parse("Capped(Forever, " + text + ")")
		switch {
		case werr != nil:
			if err == nil {
				t.Fatalf("%q: accepted as %v, time.ParseDuration says %v", text, got, werr)
			}
		case want < 0:
			if err == nil || !strings.Contains(err.Error(), "is negative") {
				t.Fatalf("%q: got %v, want the negative max rejected", text, err)
			}
		case err != nil:
			t.Fatalf("%q: %v, time.ParseDuration reads %v", text, err, want)
		default:
			if diff := cmp.Diff(schedule.Schedule(schedule.Capped{Inner: schedule.Forever{}, Max: want}), got); diff != "" {
				t.Fatalf("%q (-want +got):\n%s", text, diff)
			}
		}
	})
}
