package parse

import (
	"strconv"
	"strings"
)

// examplePolicy is what errors about a value of the wrong type show a
// policy to look like.
const examplePolicy = "backoff(100ms, 30s) & times(5)"

// wrongType is the message for a value that is not a string where a policy
// belongs; found says what it is, such as "a mapping".
func wrongType(found string) string {
	return "found " + found + "; " + policyIs
}

// policyIs says what a policy looks like, for errors about a value of the
// wrong type.
var policyIs = "a policy is a string such as " + strconv.Quote(examplePolicy)

// ConfigError is a value in a configuration file that cannot be a Policy:
// a string that does not parse, or a value that is not a string.
// Policy.UnmarshalYAML, LocateJSON and LocateYAML return it. Its Error method gives one
// line with the place in the file, such as
//
//	yaml: line 3, column 14: Times: n 0 is below 1
//	yaml: line 2, column 8: found a mapping; a policy is a string such as "backoff(100ms, 30s) & times(5)"
//	json: line 4, column 16, at clients.billing.retry: Times: n 0 is below 1
//	yaml: line 3: in the policy that starts here, at 1:29 of its text: Times: n 0 is below 1
type ConfigError struct {
	// Line and Column locate the error in the file, both from 1; Column
	// counts characters. Column is 0 when only the line is known: in a
	// literal block (|), whose indentation the decoder does not report,
	// Err.Column then counts from the end of the indentation (LocateYAML
	// finds the column).
	Line, Column int
	// Exact reports whether Line and Column point at the offending spot.
	// It is false for a folded block (>) or a string with line breaks in
	// its value, whose characters do not map back to the file's, and
	// when the decoder told only the line: Line and Column are then the
	// start of the value, and Err.Line and Err.Column the spot inside its
	// text.
	Exact bool
	// Found says what the value is when it is not a string, such as "a
	// mapping"; it is "" for a string that does not parse.
	Found string
	// Err is the error of a string that does not parse, with its position
	// counted inside the policy text; nil when Found is set. Unwrap
	// returns it.
	Err *Error
	// Key is the path of keys to the value, joined by ".", such as
	// "clients.billing.retry" or "layers.2.retry", when it is known:
	// LocateJSON and LocateYAML set it; the decoders do not tell an
	// Unmarshaler its key.
	Key string

	format     string // "yaml" or "json", the prefix of the message
	line0, col int    // where the value starts, for LocateYAML; col 0 if not known
	text       string // the policy text, for LocateYAML when col is 0
}

// Error returns the place in the file and what is wrong, on one line.
func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString(e.format)
	sep := ": "
	if e.Line > 0 { // a decoder that tells no line leaves it 0
		b.WriteString(": line ")
		b.WriteString(strconv.Itoa(e.Line))
		sep = ", "
	}
	switch {
	case e.Line == 0:
	case e.Column > 0:
		b.WriteString(", column ")
		b.WriteString(strconv.Itoa(e.Column))
	case e.Err != nil && e.Exact:
		b.WriteString(", column ")
		b.WriteString(strconv.Itoa(e.Err.Column))
		b.WriteString(" after the indentation")
	}
	if e.Key != "" {
		b.WriteString(sep)
		b.WriteString("at ")
		b.WriteString(clip(e.Key))
	}
	b.WriteString(": ")
	switch {
	case e.Err == nil:
		b.WriteString(wrongType(e.Found))
	case !e.Exact && e.Line == 0:
		b.WriteString("at ")
		b.WriteString(strconv.Itoa(e.Err.Line))
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(e.Err.Column))
		b.WriteString(" of the policy: ")
		e.Err.writeMsg(&b)
	case !e.Exact:
		b.WriteString("in the policy that starts here, at ")
		b.WriteString(strconv.Itoa(e.Err.Line))
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(e.Err.Column))
		b.WriteString(" of its text: ")
		e.Err.writeMsg(&b)
	default:
		e.Err.writeMsg(&b)
	}
	return b.String()
}

// Unwrap returns the parse error, so that errors.As finds the *Error and,
// through it, the *schedule.Error of a policy that parsed but is invalid.
func (e *ConfigError) Unwrap() error {
	if e.Err == nil {
		return nil
	}
	return e.Err
}
