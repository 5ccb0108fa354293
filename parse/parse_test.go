package parse_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

func TestParse(t *testing.T) {
	backoff := schedule.Backoff(100*time.Millisecond, 30*time.Second)
	tests := []struct {
		name string
		src  string
		want schedule.Schedule
	}{
		// The classic spellings, with bare milliseconds.
		{"seed backoff", "Intersect(backoff(100, 30000), times(5))", schedule.Intersect{A: backoff, B: schedule.Times{N: 5}}},
		{"seed andthen", "AndThen(Times(3), Spaced(60000))", schedule.AndThen{First: schedule.Times{N: 3}, Then: schedule.Spaced{Every: time.Minute}}},

		// Every name, canonical spelling.
		{"Times", "Times(5)", schedule.Times{N: 5}},
		{"Spaced", "Spaced(1m0s)", schedule.Spaced{Every: time.Minute}},
		{"Exponential", "Exponential(100ms, 200%, 30s)", schedule.Exponential{Base: 100 * time.Millisecond, FactorPct: 200, Cap: 30 * time.Second}},
		{"Fibonacci", "Fibonacci(1s)", schedule.Fibonacci{Base: time.Second}},
		{"Jittered", "Jittered(Times(2), 50%, 150%)", schedule.Jittered{Inner: schedule.Times{N: 2}, LowPct: 50, HighPct: 150}},
		{"Union", "Union(Times(2), Forever)", schedule.Union{A: schedule.Times{N: 2}, B: schedule.Forever{}}},
		{"Intersect", "Intersect(Times(2), Forever)", schedule.Intersect{A: schedule.Times{N: 2}, B: schedule.Forever{}}},
		{"AndThen", "AndThen(Times(2), Forever)", schedule.AndThen{First: schedule.Times{N: 2}, Then: schedule.Forever{}}},
		{"UpTo", "UpTo(Forever, 1m0s)", schedule.UpTo{Inner: schedule.Forever{}, Budget: time.Minute}},
		{"Forever", "Forever", schedule.Forever{}},
		{"Forever()", "Forever()", schedule.Forever{}},
		{"Capped", "Capped(Fibonacci(1s), 10s)", schedule.Capped{Inner: schedule.Fibonacci{Base: time.Second}, Max: 10 * time.Second}},
		{"Decorrelated", "Decorrelated(100ms, 10s)", schedule.Decorrelated{Base: 100 * time.Millisecond, Cap: 10 * time.Second}},
		{"backoff", "backoff(100ms, 30s)", backoff},
		{"fulljitter", "fulljitter(100ms, 30s)", schedule.FullJitter(100*time.Millisecond, 30*time.Second)},
		{"sub-percent factor", "Exponential(1s, 100.01%, 1m0s)", schedule.Exponential{Base: time.Second, FactorPct: 100, FactorFrac: 100, Cap: time.Minute}},
		{"sub-percent jitter", "Jittered(Times(2), 99.5%, 100.5)", schedule.Jittered{Inner: schedule.Times{N: 2}, LowPct: 99, LowFrac: 5000, HighPct: 100, HighFrac: 5000}},
		{"the finest percent", "Jittered(Times(2), 0.0001%, 0.0001%)", schedule.Jittered{Inner: schedule.Times{N: 2}, LowFrac: 1, HighFrac: 1}},
		{"Linear", "Linear(2s, 2s)", schedule.Linear{Base: 2 * time.Second, Step: 2 * time.Second}},
		{"linear with its step left out", "linear(2s)", schedule.Linear{Base: 2 * time.Second, Step: 2 * time.Second}},
		{"linear by name", "linear(step=100ms, base=500ms)", schedule.Linear{Base: 500 * time.Millisecond, Step: 100 * time.Millisecond}},
		{"DecorrelatedV2", "DecorrelatedV2(1s)", schedule.DecorrelatedV2{Base: time.Second}},
		{"decorrelatedv2 in lower case", "capped(decorrelatedv2(200ms), 30s)", schedule.Capped{Inner: schedule.DecorrelatedV2{Base: 200 * time.Millisecond}, Max: 30 * time.Second}},
		{"ResetAfter", "ResetAfter(Fibonacci(1s), 10m0s)", schedule.ResetAfter{Inner: schedule.Fibonacci{Base: time.Second}, After: 10 * time.Minute}},
		{"Random", "Random(0s, 1s)", schedule.Random{Lo: 0, Hi: time.Second}},
		{"Sum", "Sum(Linear(1s, 0s), Random(0s, 3s))", schedule.Sum{A: schedule.Linear{Base: time.Second}, B: schedule.Random{Hi: 3 * time.Second}}},
		{"WhileBelow", "WhileBelow(Fibonacci(1s), 10s)", schedule.WhileBelow{Inner: schedule.Fibonacci{Base: time.Second}, Limit: 10 * time.Second}},
		// + binds tighter than &, and nests to the left.
		{"plus", "linear(1s) + random(0, 1s) + forever & times(3)", schedule.Intersect{
			A: schedule.Sum{A: schedule.Sum{A: schedule.Linear{Base: time.Second, Step: time.Second}, B: schedule.Random{Hi: time.Second}}, B: schedule.Forever{}},
			B: schedule.Times{N: 3}}},
		{"plus in a group", "times(2) & (forever + times(3)) | forever", schedule.Union{
			A: schedule.Intersect{A: schedule.Times{N: 2}, B: schedule.Sum{A: schedule.Forever{}, B: schedule.Times{N: 3}}},
			B: schedule.Forever{}}},

		// Names without regard to case.
		{"upper case", "TIMES(5)", schedule.Times{N: 5}},
		{"mixed case", "BackOff(100, 30000)", backoff},
		{"upper helper", "FULLJITTER(1s, 2s)", schedule.FullJitter(time.Second, 2*time.Second)},
		{"lower forever", "forever", schedule.Forever{}},

		// Named arguments: = or :, any order, Go field names, after positional ones.
		{"named", "Exponential(base=100ms, factor=200%, cap=30s)", schedule.Exponential{Base: 100 * time.Millisecond, FactorPct: 200, Cap: 30 * time.Second}},
		{"named reordered", "Exponential(cap: 30s, base: 100ms, factor: 200)", schedule.Exponential{Base: 100 * time.Millisecond, FactorPct: 200, Cap: 30 * time.Second}},
		{"go field names", "Exponential(Base=1s, FactorPct=150, Cap=1m)", schedule.Exponential{Base: time.Second, FactorPct: 150, Cap: time.Minute}},
		{"jittered go names", "Jittered(Inner=Forever, LowPct=10, HighPct=20)", schedule.Jittered{Inner: schedule.Forever{}, LowPct: 10, HighPct: 20}},
		{"named case", "Jittered(INNER=Forever, Low=10, HIGH=20)", schedule.Jittered{Inner: schedule.Forever{}, LowPct: 10, HighPct: 20}},
		{"positional then named", "Jittered(Forever, high=20, low=10)", schedule.Jittered{Inner: schedule.Forever{}, LowPct: 10, HighPct: 20}},
		{"then as a parameter", "AndThen(first=Times(3), then=Forever)", schedule.AndThen{First: schedule.Times{N: 3}, Then: schedule.Forever{}}},
		{"then parameter first", "AndThen(then: Forever, first: Times(3))", schedule.AndThen{First: schedule.Times{N: 3}, Then: schedule.Forever{}}},
		{"union a b", "Union(b=Forever, a=Times(2))", schedule.Union{A: schedule.Times{N: 2}, B: schedule.Forever{}}},
		{"n", "Times(n=4)", schedule.Times{N: 4}},
		{"every", "Spaced(Every: 5s)", schedule.Spaced{Every: 5 * time.Second}},
		{"budget and max", "Capped(UpTo(inner=Forever, budget=1s), max=2s)", schedule.Capped{Inner: schedule.UpTo{Inner: schedule.Forever{}, Budget: time.Second}, Max: 2 * time.Second}},
		{"named upto arg", "UpTo(budget = 5s, inner = Times(2))", schedule.UpTo{Inner: schedule.Times{N: 2}, Budget: 5 * time.Second}},

		// Durations.
		{"go units", "Spaced(1h2m3.5s)", schedule.Spaced{Every: time.Hour + 2*time.Minute + 3500*time.Millisecond}},
		{"fraction", "Spaced(1.5s)", schedule.Spaced{Every: 1500 * time.Millisecond}},
		{"micro sign", "Spaced(10µs)", schedule.Spaced{Every: 10 * time.Microsecond}},
		{"greek mu", "Spaced(10μs)", schedule.Spaced{Every: 10 * time.Microsecond}},
		{"us", "Spaced(10us)", schedule.Spaced{Every: 10 * time.Microsecond}},
		{"ns", "Spaced(7ns)", schedule.Spaced{Every: 7}},
		{"leading dot", "Spaced(.5s)", schedule.Spaced{Every: 500 * time.Millisecond}},
		{"bare integer is ms", "Spaced(250)", schedule.Spaced{Every: 250 * time.Millisecond}},
		{"plus sign", "Spaced(+2s)", schedule.Spaced{Every: 2 * time.Second}},
		{"zero budget", "UpTo(Forever, 0)", schedule.UpTo{Inner: schedule.Forever{}}},
		{"zero with unit", "Capped(Forever, 0s)", schedule.Capped{Inner: schedule.Forever{}}},
		{"largest duration", "Spaced(2562047h47m16.854775807s)", schedule.Spaced{Every: schedule.MaxDuration}},
		{"largest in ns", "Spaced(9223372036854775807ns)", schedule.Spaced{Every: schedule.MaxDuration}},
		{"largest ms", "Spaced(9223372036854)", schedule.Spaced{Every: 9223372036854 * time.Millisecond}},

		// Percentages with or without %.
		{"pct with sign", "Jittered(Forever, 0%, 1000%)", schedule.Jittered{Inner: schedule.Forever{}, HighPct: 1000}},
		{"pct bare", "Jittered(Forever, 0, 1000)", schedule.Jittered{Inner: schedule.Forever{}, HighPct: 1000}},

		// Infix operators, precedence and nesting.
		{"and", "Times(2) & Forever", schedule.Intersect{A: schedule.Times{N: 2}, B: schedule.Forever{}}},
		{"or", "Times(2) | Forever", schedule.Union{A: schedule.Times{N: 2}, B: schedule.Forever{}}},
		{"then", "Times(2) then Forever", schedule.AndThen{First: schedule.Times{N: 2}, Then: schedule.Forever{}}},
		{">>", "Times(2) >> Forever", schedule.AndThen{First: schedule.Times{N: 2}, Then: schedule.Forever{}}},
		{"THEN", "Times(2) THEN Forever", schedule.AndThen{First: schedule.Times{N: 2}, Then: schedule.Forever{}}},
		{"upto", "Forever upto 30s", schedule.UpTo{Inner: schedule.Forever{}, Budget: 30 * time.Second}},
		{"UpTo keyword", "Forever UpTo 30000", schedule.UpTo{Inner: schedule.Forever{}, Budget: 30 * time.Second}},
		{"& nests left", "Times(1) & Times(2) & Times(3)",
			schedule.Intersect{A: schedule.Intersect{A: schedule.Times{N: 1}, B: schedule.Times{N: 2}}, B: schedule.Times{N: 3}}},
		{"| nests left", "Times(1) | Times(2) | Times(3)",
			schedule.Union{A: schedule.Union{A: schedule.Times{N: 1}, B: schedule.Times{N: 2}}, B: schedule.Times{N: 3}}},
		{"then nests right", "Times(1) then Times(2) then Times(3)",
			schedule.AndThen{First: schedule.Times{N: 1}, Then: schedule.AndThen{First: schedule.Times{N: 2}, Then: schedule.Times{N: 3}}}},
		{">> and then mix", "Times(1) >> Times(2) then Times(3)",
			schedule.AndThen{First: schedule.Times{N: 1}, Then: schedule.AndThen{First: schedule.Times{N: 2}, Then: schedule.Times{N: 3}}}},
		{"& over |", "Times(1) | Times(2) & Times(3)",
			schedule.Union{A: schedule.Times{N: 1}, B: schedule.Intersect{A: schedule.Times{N: 2}, B: schedule.Times{N: 3}}}},
		{"& over | left", "Times(1) & Times(2) | Times(3)",
			schedule.Union{A: schedule.Intersect{A: schedule.Times{N: 1}, B: schedule.Times{N: 2}}, B: schedule.Times{N: 3}}},
		{"| over then", "Times(1) then Times(2) | Times(3)",
			schedule.AndThen{First: schedule.Times{N: 1}, Then: schedule.Union{A: schedule.Times{N: 2}, B: schedule.Times{N: 3}}}},
		{"| over then left", "Times(1) | Times(2) then Times(3)",
			schedule.AndThen{First: schedule.Union{A: schedule.Times{N: 1}, B: schedule.Times{N: 2}}, Then: schedule.Times{N: 3}}},
		{"upto loosest", "Times(1) then Times(2) | Times(3) & Forever upto 1m",
			schedule.UpTo{Inner: schedule.AndThen{First: schedule.Times{N: 1}, Then: schedule.Union{A: schedule.Times{N: 2}, B: schedule.Intersect{A: schedule.Times{N: 3}, B: schedule.Forever{}}}}, Budget: time.Minute}},
		{"parens group", "Times(1) & (Times(2) | Times(3))",
			schedule.Intersect{A: schedule.Times{N: 1}, B: schedule.Union{A: schedule.Times{N: 2}, B: schedule.Times{N: 3}}}},
		{"parens right &", "Times(1) & (Times(2) & Times(3))",
			schedule.Intersect{A: schedule.Times{N: 1}, B: schedule.Intersect{A: schedule.Times{N: 2}, B: schedule.Times{N: 3}}}},
		{"parens left then", "(Times(1) then Times(2)) then Times(3)",
			schedule.AndThen{First: schedule.AndThen{First: schedule.Times{N: 1}, Then: schedule.Times{N: 2}}, Then: schedule.Times{N: 3}}},
		{"nested upto", "(Forever upto 2s) upto 1s",
			schedule.UpTo{Inner: schedule.UpTo{Inner: schedule.Forever{}, Budget: 2 * time.Second}, Budget: time.Second}},
		{"redundant parens", "((Times(2)))", schedule.Times{N: 2}},
		{"infix in an argument", "Jittered(Times(2) | Forever upto 1s, 50, 100)",
			schedule.Jittered{Inner: schedule.UpTo{Inner: schedule.Union{A: schedule.Times{N: 2}, B: schedule.Forever{}}, Budget: time.Second}, LowPct: 50, HighPct: 100}},
		{"named infix argument", "Capped(inner = Times(2) then Forever, max = 1s)",
			schedule.Capped{Inner: schedule.AndThen{First: schedule.Times{N: 2}, Then: schedule.Forever{}}, Max: time.Second}},

		// White space, newlines and comments.
		{"no spaces", "backoff(100ms,30s)&times(5)", schedule.Intersect{A: backoff, B: schedule.Times{N: 5}}},
		{"newlines and comments", "# retry calls to the billing service\n  backoff(100ms, 30s)  # jittered\n\t& times(5) # at most five attempts\n",
			schedule.Intersect{A: backoff, B: schedule.Times{N: 5}}},
		{"comment between name and =", "Times(n # the count\n = 3)", schedule.Times{N: 3}},
		{"crlf", "Times(3)\r\n| Forever\r\n", schedule.Union{A: schedule.Times{N: 3}, B: schedule.Forever{}}},
		{"space before paren", "Times (3)", schedule.Times{N: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parse.Parse(tt.src)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.src, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tt.src, diff)
			}
			// What parses is canonical once printed: the print parses to the same value.
			again, err := parse.Parse(got.String())
			if err != nil {
				t.Fatalf("Parse(%q) of the canonical form: %v", got.String(), err)
			}
			if diff := cmp.Diff(got, again); diff != "" {
				t.Errorf("canonical form %q does not round-trip (-want +got):\n%s", got.String(), diff)
			}
		})
	}
}

func TestParseConcurrent(t *testing.T) {
	const src = "Intersect(backoff(100, 30000), times(5)) then Spaced(1m) upto 1h"
	want, err := parse.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			for range 50 {
				got, err := parse.Parse(src)
				if err == nil && got != want {
					err = &parse.Error{Msg: "got " + got.String()}
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
