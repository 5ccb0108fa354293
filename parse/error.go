package parse

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is a policy that does not parse or does not validate. Its Error
// method gives one line, such as
//
//	1:11: unknown name "Exponental"; did you mean "Exponential"?
//
// and Caret shows the spot in the source.
type Error struct {
	// Line and Column locate the error, both counted from 1; Column counts
	// characters (runes), not bytes.
	Line, Column int
	// Offset is the error's byte offset in the source.
	Offset int
	// Token is the offending token as written, or "" at the end of input.
	Token string
	// Expected says what would have been accepted at that spot, such as
	// `"," or ")"`; it is "" when the token was acceptable but wrong.
	Expected string
	// Msg says what is wrong, without the position or the expectation.
	Msg string
	// Err is the *schedule.Error from schedule.Validate for a policy that
	// parsed but is invalid, and nil for a syntax error. Unwrap returns it.
	Err error

	src string // the whole source, for Caret
}

// Error returns the position, the message and what was expected, on one line.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(e.Line))
	b.WriteByte(':')
	b.WriteString(strconv.Itoa(e.Column))
	b.WriteString(": ")
	e.writeMsg(&b)
	return b.String()
}

// writeMsg writes the message and what was expected, without the position.
func (e *Error) writeMsg(b *strings.Builder) {
	b.WriteString(e.Msg)
	if e.Expected != "" {
		b.WriteString("; expected ")
		b.WriteString(e.Expected)
	}
}

// Unwrap returns the validation error behind a semantic error, so that
// errors.As(err, new(*schedule.Error)) finds it.
func (e *Error) Unwrap() error { return e.Err }

// caretWidth is how many characters of a long source line Caret shows on
// each side of the error.
const caretWidth = 60

// Caret returns the source line of the error and, below it, a caret under
// the spot, such as
//
//	Intersect(Exponental(100ms, 200%, 30s), Times(5))
//	          ^
//
// A very long line is cut to the part around the spot, marked with "…".
// The result has no trailing newline.
func (e *Error) Caret() string {
	start := strings.LastIndexByte(e.src[:min(e.Offset, len(e.src))], '\n') + 1
	end := strings.IndexByte(e.src[start:], '\n')
	if end < 0 {
		end = len(e.src)
	} else {
		end += start
	}
	line, at := e.src[start:end], e.Offset-start
	prefix, suffix := "", ""
	if n := utf8.RuneCountInString(line[:at]); n > caretWidth {
		cut := at
		for range caretWidth {
			_, size := utf8.DecodeLastRuneInString(line[:cut])
			cut -= size
		}
		line, at, prefix = line[cut:], at-cut, "…"
	}
	if n := utf8.RuneCountInString(line[at:]); n > caretWidth {
		cut := at
		for range caretWidth {
			_, size := utf8.DecodeRuneInString(line[cut:])
			cut += size
		}
		line, suffix = line[:cut], "…"
	}
	line = strings.TrimRight(line, "\r")
	var b strings.Builder
	b.WriteString(prefix)
	b.WriteString(line)
	b.WriteString(suffix)
	b.WriteByte('\n')
	if prefix != "" {
		b.WriteByte(' ')
	}
	for _, r := range line[:min(at, len(line))] {
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
	}
	b.WriteByte('^')
	return b.String()
}

// newError returns the error at byte offset off of src.
func newError(src string, off int, token, msg, expected string) *Error {
	line, col := position(src, off)
	return &Error{Line: line, Column: col, Offset: off, Token: token, Expected: expected, Msg: msg, src: src}
}

// position returns the line and column, both from 1, of byte offset off.
func position(src string, off int) (line, col int) {
	off = min(off, len(src))
	start := strings.LastIndexByte(src[:off], '\n') + 1
	return strings.Count(src[:start], "\n") + 1, utf8.RuneCountInString(src[start:off]) + 1
}

// tooDeep is the error for nesting beyond MaxDepth at byte offset off.
func tooDeep(src string, off int) *Error {
	return newError(src, off, tokenAt(src, off), "policy nests deeper than "+strconv.Itoa(MaxDepth)+" levels", "")
}

// tokenAt returns the text of the token starting at byte offset off, for
// errors found after lexing: the lexer is cheap enough to run again.
func tokenAt(src string, off int) string {
	if off >= len(src) {
		return ""
	}
	l := lexState{src: src, off: off}
	t, err := l.Next()
	if err != nil || t.EOF() {
		_, size := utf8.DecodeRuneInString(src[off:])
		return src[off : off+size]
	}
	if t.Type == tokField {
		return src[off:l.off]
	}
	return t.Value
}
