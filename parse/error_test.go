package parse_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

// TestErrorMessages pins the exact one-line message of every class of
// error: lexical, syntactic (with what was expected), names and arities,
// parameters, kinds of argument, numbers, and validation errors placed at
// their spot in the source.
func TestErrorMessages(t *testing.T) {
	tests := []struct{ src, want string }{
		// Characters that start no token.
		{"Times(3) $ Forever", "1:10: unexpected character \"$\""},
		{"Times(3) > Forever", "1:10: unexpected character \">\"; did you mean \">>\"?"},
		{"Times(3) é", "1:10: unexpected character \"é\""},
		{"Times(3)\x00", "1:9: unexpected character \"\\x00\""},
		{"Times(3) \xff", "1:10: unexpected character \"\\xff\""},
		// Syntax: the unexpected token and what was expected.
		{"Times(3) Times(4)", "1:10: unexpected \"Times\"; expected an operator or end of input"},
		{"Times(3) &", "1:11: unexpected end of input; expected a policy"},
		{"Times(3", "1:8: unexpected end of input; expected \",\" or \")\""},
		{"Times(3,)", "1:9: unexpected \")\"; expected an argument"},
		{"Times(,3)", "1:7: unexpected \",\"; expected an argument or \")\""},
		{"Times(n=)", "1:9: unexpected \")\"; expected a value"},
		{"Times(3) upto", "1:14: unexpected end of input; expected a duration"},
		{"Times(3) upto 1s upto 2s", "1:18: unexpected \"upto\"; expected end of input"},
		{"Times(3) upto 1s & Forever", "1:18: unexpected \"&\"; expected end of input"},
		{"x = 3", "1:1: unexpected parameter name \"x\"; expected a policy"},
		{"(Times(3)", "1:10: unexpected end of input; expected an operator or \")\""},
		{"Times(3))", "1:9: unexpected \")\"; expected an operator or end of input"},
		{"Times(3) then then Forever", "1:20: unexpected \"Forever\"; expected \"(\", an operator or end of input"},
		{"& Forever", "1:1: unexpected \"&\"; expected a policy"},
		{"Times(3) = 4", "1:10: unexpected \"=\"; expected an operator or end of input"},
		{"Forever Forever", "1:9: unexpected \"Forever\"; expected \"(\", an operator or end of input"},
		// Unknown names and operators, with the closest known one.
		{"Exponental(100ms, 200%, 30s)", "1:1: unknown name \"Exponental\"; did you mean \"Exponential\"?"},
		{"Frobnicate(3)", "1:1: unknown name \"Frobnicate\""},
		{"Times(3) thne Forever", "1:10: unknown operator \"thne\"; did you mean \"then\"?"},
		{"Times(3) upt 1s", "1:10: unknown operator \"upt\"; did you mean \"upto\"?"},
		// Arity.
		{"Exponential(1s, 200)", "1:1: Exponential takes (base, factor, cap); got 2 arguments"},
		{"Times(1, 2)", "1:1: Times takes (n); got 2 arguments"},
		{"Times", "1:1: Times takes (n); got 0 arguments"},
		{"Forever(Times(2))", "1:1: Forever takes no arguments; got 1 argument"},
		// Named arguments.
		{"Exponential(base=1s, factr=200, cap=1m)", "1:22: Exponential has no parameter \"factr\"; did you mean \"factor\"?"},
		{"Exponential(base=1s, zzz=200, cap=1m)", "1:22: Exponential has no parameter \"zzz\""},
		{"Exponential(base=1s, base=2s, cap=1m)", "1:22: Exponential: base is given twice"},
		{"Exponential(base=1s, 200, cap=1m)", "1:22: Exponential: positional argument after a named one"},
		// Arguments of the wrong kind.
		{"Spaced(200%)", "1:8: Spaced: every wants a duration, got 200%"},
		{"Spaced(Forever)", "1:8: Spaced: every wants a duration, got a policy"},
		{"Times(5s)", "1:7: Times: n wants an integer, got 5s"},
		{"Times(Forever)", "1:7: Times: n wants an integer, got a policy"},
		{"Times(3.5)", "1:7: Times: n wants an integer, got 3.5"},
		{"Jittered(100, 50, 100)", "1:10: Jittered: inner wants a policy, got 100"},
		{"Jittered(Forever, 50ms, 100)", "1:19: Jittered: low wants a percentage, got 50ms"},
		{"Jittered(Forever, 5.5s, 100)", "1:19: Jittered: low wants a percentage, got 5.5s"},
		// A percentage takes four decimals at most: the finest factor is 0.0001%.
		{"Jittered(Forever, 5.00005%, 100)", "1:19: percentage 5.00005% is finer than 0.0001%, the finest a factor holds"},
		{"Jittered(Forever, 99.5%, 100.5%) & exponential(1s, 100.5, 1s) & times(0)", "1:71: Times: n 0 is below 1"},
		{"exponential(1s, 99.99%, 1m)", "1:17: Exponential: factor 99.99% is below 100%"},
		{"Jittered(Forever, -0.5%, 100)", "1:19: Jittered: low -0.5% is below 0%"},
		{"Jittered(Forever, 50.25%, 50.2%)", "1:19: Jittered: low 50.25% above high 50.2%"},
		{"Jittered(Forever, 0, 1000.0001%)", "1:22: Jittered: high 1000.0001% is above 1000%"},
		{"Forever upto 5%", "1:14: upto wants a duration, got 5%"},
		{"Forever upto -1s", "1:14: UpTo: budget -1s is negative"},
		// Numbers: overflow, units, syntax.
		{"Times(99999999999999999999)", "1:7: integer 99999999999999999999 is out of range"},
		{"Jittered(Forever, 99999999999999999999%, 100)", "1:19: percentage 99999999999999999999% is out of range"},
		{"Spaced(9223372036855)", "1:8: duration 9223372036855 (milliseconds) is out of range"},
		{"Spaced(2562048h)", "1:8: duration 2562048h is out of range"},
		{"Spaced(9223372036854775808ns)", "1:8: duration 9223372036854775808ns is out of range"},
		{"Spaced(1.5)", "1:8: missing unit in duration \"1.5\", such as \"1.5s\" or \"1.5ms\""},
		{"Spaced(1m30)", "1:8: missing unit in duration \"1m30\", such as \"1m30s\" or \"1m30ms\""},
		{"Spaced(5sec)", "1:8: unknown unit \"sec\" in duration \"5sec\"; did you mean \"s\"?"},
		{"Spaced(5S)", "1:8: unknown unit \"S\" in duration \"5S\"; did you mean \"s\"?"},
		{"Spaced(5x)", "1:8: unknown unit \"x\" in duration \"5x\""},
		{"Spaced(1..5s)", "1:8: invalid duration \"1..5s\""},
		{"Spaced(.s)", "1:8: invalid duration \".s\""},
		// Validation, at the argument the message is about.
		{"Times(0)", "1:7: Times: n 0 is below 1"},
		{"Times(-1)", "1:7: Times: n -1 is below 1"},
		{"Spaced(0)", "1:8: Spaced: every 0s is not positive"},
		{"Exponential(100ms, 50%, 30s)", "1:20: Exponential: factor 50% is below 100%"},
		{"Exponential(0, 200, 30s)", "1:13: Exponential: base 0s is not positive"},
		{"Exponential(base=1s, factor=99, cap=1m)", "1:29: Exponential: factor 99% is below 100%"},
		{"Jittered(Forever, 120, 100)", "1:19: Jittered: low 120% above high 100%"},
		{"Jittered(Forever, -1, 100)", "1:19: Jittered: low -1% is below 0%"},
		{"Jittered(Forever, 0, 1001)", "1:22: Jittered: high 1001% is above 1000%"},
		{"Capped(Forever, -1s)", "1:17: Capped: max -1s is negative"},
		{"UpTo(Forever, -1s)", "1:15: UpTo: budget -1s is negative"},
		{"Decorrelated(1s, 0)", "1:18: Decorrelated: cap 0s is not positive"},
		{"backoff(0, 30s)", "1:9: backoff: base 0s is not positive"},
		{"fulljitter(1s, -1s)", "1:16: fulljitter: cap -1s is not positive"},
		{"Fibonacci(0)", "1:11: Fibonacci: base 0s is not positive"},
		{"linear(-1s)", "1:8: Linear: base -1s is negative"},
		{"decorrelatedv2(0)", "1:16: DecorrelatedV2: base 0s is not positive"},
		{"resetafter(forever, 0)", "1:21: ResetAfter: after 0s is not positive"},
		{"random(2s, 1s)", "1:8: Random: lo 2s above hi 1s"},
		{"whilebelow(forever, 0s)", "1:21: WhileBelow: limit 0s is not positive"},
		{"times(2) + (forever + times(0))", "1:29: Times: n 0 is below 1"},
		// Validation of a nested node.
		{"Times(2) & (Forever | Times(0))", "1:29: Times: n 0 is below 1"},
		{"Times(2) &\n  (Forever\n   | Times(0))", "3:12: Times: n 0 is below 1"},
		{"Union(Forever, Intersect(Times(2), AndThen(Forever, Spaced(-5s))))", "1:60: Spaced: every -5s is not positive"},
		{"Times(1) then Times(2) then Times(0)", "1:35: Times: n 0 is below 1"},
		// Nothing to parse.
		{"", "1:1: empty policy"},
		{"   # only a comment\n", "1:1: empty policy"},
	}
	for _, tt := range tests {
		_, err := parse.Parse(tt.src)
		if err == nil {
			t.Errorf("Parse(%q) = nil error, want %q", tt.src, tt.want)
			continue
		}
		var perr *parse.Error
		if !errors.As(err, &perr) {
			t.Errorf("Parse(%q) error %T is not a *parse.Error", tt.src, err)
		}
		if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
			t.Errorf("Parse(%q) error (-want +got):\n%s", tt.src, diff)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q) error spans lines: %q", tt.src, err.Error())
		}
	}
}

// TestErrorFields checks the structured fields behind the messages.
func TestErrorFields(t *testing.T) {
	tests := []struct {
		src  string
		want parse.Error
	}{
		{"Times(3", parse.Error{Line: 1, Column: 8, Offset: 7, Token: "", Expected: `"," or ")"`, Msg: "unexpected end of input"}},
		{"Times(3) Times(4)", parse.Error{Line: 1, Column: 10, Offset: 9, Token: "Times", Expected: "an operator or end of input", Msg: `unexpected "Times"`}},
		{"Times(2) &\n  Exponental(1s, 200, 1m)", parse.Error{Line: 2, Column: 3, Offset: 13, Token: "Exponental", Msg: `unknown name "Exponental"; did you mean "Exponential"?`}},
		{"# µs\nTimes(3) é", parse.Error{Line: 2, Column: 10, Offset: 15, Token: "é", Msg: `unexpected character "é"`}},
		{"Spaced(1m30)", parse.Error{Line: 1, Column: 8, Offset: 7, Token: "1m30", Msg: `missing unit in duration "1m30", such as "1m30s" or "1m30ms"`}},
		{"Capped(Forever, max = 1s, inner: Times(2), max: 2s)", parse.Error{Line: 1, Column: 1, Offset: 0, Token: "Capped", Msg: "Capped takes (inner, max); got 4 arguments"}},
	}
	for _, tt := range tests {
		_, err := parse.Parse(tt.src)
		var got *parse.Error
		if !errors.As(err, &got) {
			t.Fatalf("Parse(%q) = %v, want a *parse.Error", tt.src, err)
		}
		if diff := cmp.Diff(&tt.want, got, cmpopts.IgnoreUnexported(parse.Error{})); diff != "" {
			t.Errorf("Parse(%q) error (-want +got):\n%s", tt.src, diff)
		}
	}
}

// TestValidationError checks that a value schedule.Validate rejects is
// reported at its place in the source and unwraps to the *schedule.Error.
func TestValidationError(t *testing.T) {
	src := "Union(Times(3),\n      Jittered(Spaced(1s), low=150%, high=100%))"
	_, err := parse.Parse(src)
	var perr *parse.Error
	if !errors.As(err, &perr) {
		t.Fatalf("Parse = %v, want a *parse.Error", err)
	}
	var verr *schedule.Error
	if !errors.As(err, &verr) {
		t.Fatalf("Parse = %v, want it to wrap a *schedule.Error", err)
	}
	want := &schedule.Error{
		Path:   "Union.B.Jittered",
		Fields: []string{"B"},
		Node:   schedule.Jittered{Inner: schedule.Spaced{Every: 1e9}, LowPct: 150, HighPct: 100},
		Msg:    "low 150% above high 100%",
	}
	if diff := cmp.Diff(want, verr); diff != "" {
		t.Errorf("validation error (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("2:32: Jittered: low 150% above high 100%", perr.Error()); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("150%", perr.Token); diff != "" {
		t.Errorf("token (-want +got):\n%s", diff)
	}
}

func TestErrorCaret(t *testing.T) {
	long := strings.Repeat("Times(1) & ", 20)
	tests := []struct{ name, src, want string }{
		{"first line", "Intersect(Exponental(100ms, 200%, 30s), Times(5))",
			"Intersect(Exponental(100ms, 200%, 30s), Times(5))\n" +
				"          ^"},
		{"later line", "Times(2)\n  & Times(0)\n  # done",
			"  & Times(0)\n" +
				"          ^"},
		{"end of input", "Times(3) then",
			"Times(3) then\n" +
				"             ^"},
		{"tabs kept", "Times(2) |\n\t\tSpaced(-1s)",
			"\t\tSpaced(-1s)\n" +
				"\t\t       ^"},
		{"characters, not bytes", "# µµµ\nµ Times(1)",
			"µ Times(1)\n" +
				"^"},
		{"crlf", "Times(2)\r\n| Times(0)\r\n",
			"| Times(0)\n" +
				"        ^"},
		{"long line cut", long + "Frobnicate(3) & " + long + "Forever",
			"…" + long[len(long)-60:] + "Frobnicate(3) & " + long[:44] + "…\n" +
				strings.Repeat(" ", 61) + "^"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse.Parse(tt.src)
			var perr *parse.Error
			if !errors.As(err, &perr) {
				t.Fatalf("Parse(%q) = %v, want a *parse.Error", tt.src, err)
			}
			if diff := cmp.Diff(tt.want, perr.Caret()); diff != "" {
				t.Errorf("Caret (-want +got):\n%s", diff)
			}
		})
	}
}
