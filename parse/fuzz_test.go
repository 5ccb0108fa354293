package parse_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

// FuzzParse checks that Parse never panics, that every error is an *Error
// with a position inside the input and a one-line message, and that
// whatever it accepts is valid and round-trips through both printed forms.
// The corpus is in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"Intersect(backoff(100, 30000), times(5))",
		"AndThen(Times(3), Spaced(60000))",
		"backoff(100ms, 30s) & times(5) | forever then spaced(1m) upto 1h",
		"Exponential(base=100ms, factor: 200%, cap=30s)",
		"AndThen(first=Times(3), then=Forever)",
		"Jittered(Decorrelated(1s, 1m) | Fibonacci(10ms), 0, 1000) >> Capped(Forever, 1µs)",
		"# comment\n(Times(2)\n  & (Forever | Times(3)))  # more\n",
		"UpTo(fulljitter(1.5s, 1m30s), 2562047h47m16.854775807s)",
		"Times(99999999999999999999)",
		"Spaced(-9223372036854775808ns)",
		"Exponental(",
		"((((((((((",
		"Times(3) thne Forever",
		"linear(2s) & times(4)",
		"exponential(1s, 200%, 1m) + random(0, 1s) & times(5)",
		"WhileBelow(Linear(100ms, 50ms), 2s) + Sum(forever, Random(1ms, 2ms))",
		"linear(step=1s)",
		"capped(decorrelatedv2(200ms), 30s) & times(6)",
		"resetafter(fulljitter(1s, 1m), after = 10m) & times(99)",
		"Jittered(Exponential(1s, 100.01%, 1m), 99.5%, 100.5) & times(3)",
		"exponential(1s, 100.00001%, 1m)",
		"jittered(forever, -0.5%, 1000.0001%)",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := parse.Parse(src)
		if err != nil {
			var perr *parse.Error
			if !errors.As(err, &perr) {
				t.Fatalf("Parse(%q) error %T is not a *parse.Error: %v", src, err, err)
			}
			if perr.Offset < 0 || perr.Offset > len(src) || perr.Line < 1 || perr.Column < 1 {
				t.Fatalf("Parse(%q) error position %d:%d@%d outside the input", src, perr.Line, perr.Column, perr.Offset)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("Parse(%q) error spans lines: %q", src, err.Error())
			}
			if c := perr.Caret(); strings.Count(c, "\n") != 1 || !strings.HasSuffix(c, "^") {
				t.Fatalf("Parse(%q) caret malformed: %q", src, c)
			}
			return
		}
		if err := schedule.Validate(s); err != nil {
			t.Fatalf("Parse(%q) = %v, which is invalid: %v", src, s, err)
		}
		for _, style := range []parse.Style{parse.Canonical, parse.Infix} {
			printed := parse.Format(s, style)
			again, err := parse.Parse(printed)
			if err != nil {
				t.Fatalf("Parse(%q) = %v, whose %v form %q does not parse: %v", src, s, style, printed, err)
			}
			if again != s {
				t.Fatalf("Parse(%q) = %v, whose %v form %q parses to %v", src, s, style, printed, again)
			}
		}
	})
}
