package parse

import (
	"errors"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
	"github.com/recur-go/recur/internal/suggest"
	"github.com/recur-go/recur/schedule"
)

// Limits on the input, so that hostile or broken configuration ends in an
// error instead of exhausting memory or the stack. A real policy is far
// below all three: the ten of the cookbook in docs/language.md have at
// most 30 tokens and nest at most 4 levels.
const (
	// MaxLen is the longest policy, in bytes, that Parse accepts.
	MaxLen = 64 << 10
	// MaxTokens is the most tokens (names, numbers, operators,
	// punctuation) a policy may have; comments and white space do not
	// count. It bounds the parser's work, about 1 KiB of allocation per
	// argument. The canonical form takes at most 8 tokens per node, so
	// every schedule of up to 500 nodes parses back.
	MaxTokens = 4096
	// MaxDepth is the deepest nesting that Parse accepts, counted both in
	// parentheses and in levels of the resulting schedule. Schedules nested
	// deeper than this print, but do not parse back.
	MaxDepth = 64
)

// bom is the UTF-8 byte order mark.
const bom = "\uFEFF"

// Parse reads a policy and returns the schedule it describes, validated by
// schedule.Validate. Any error is an *Error that tells where the problem is.
// A UTF-8 byte order mark at the start, which some editors write, is
// skipped: positions in errors count from after it, as an editor shows
// them.
func Parse(src string) (schedule.Schedule, error) {
	src = strings.TrimPrefix(src, bom)
	if len(src) > MaxLen {
		return nil, newError(src, MaxLen, "", "policy is "+strconv.Itoa(len(src))+" bytes long; the limit is "+strconv.Itoa(MaxLen), "")
	}
	tree, err := grammar.ParseString("", src)
	if err != nil {
		return nil, syntaxError(src, err)
	}
	b := builder{src: src}
	x, err := b.policy(tree)
	if err != nil {
		return nil, err
	}
	if err := schedule.Validate(x.s); err != nil {
		var verr *schedule.Error
		if !errors.As(err, &verr) { // Validate returns only *schedule.Error
			e := newError(src, 0, "", err.Error(), "")
			e.Err = err
			return nil, e
		}
		// Build again, recording where each node came from.
		b = builder{src: src, record: true}
		if x, err = b.policy(tree); err != nil {
			return nil, err
		}
		return nil, b.invalid(x.node, verr)
	}
	return x.s, nil
}

// syntaxError converts participle's error into an *Error.
func syntaxError(src string, err error) error {
	var perr *Error
	if errors.As(err, &perr) { // from the lexer
		return perr
	}
	var uerr *participle.UnexpectedTokenError
	if errors.As(err, &uerr) {
		tok := uerr.Unexpected
		want := expected(src, tok.Pos.Offset)
		if tok.Type == tokIdent && strings.Contains(want, wantOperator) {
			if s := suggest.Closest(tok.Value, []string{"then", "upto"}); s != "" {
				msg := "unknown operator " + quote(tok.Value) + "; did you mean " + strconv.Quote(s) + "?"
				return newError(src, tok.Pos.Offset, tok.Value, msg, "")
			}
		}
		if tok.EOF() && skipSpace(src, 0) == len(src) {
			return newError(src, 0, "", "empty policy", "")
		}
		return newError(src, tok.Pos.Offset, tok.Value, "unexpected "+describe(tok), want)
	}
	var pe participle.Error
	if errors.As(err, &pe) {
		off := pe.Position().Offset
		return newError(src, off, tokenAt(src, off), pe.Message(), expected(src, off))
	}
	return newError(src, 0, "", err.Error(), "")
}

// describe names a token for a message: end of input, a parameter name,
// or its text quoted.
func describe(tok lexer.Token) string {
	switch {
	case tok.EOF():
		return "end of input"
	case tok.Type == tokField:
		return "parameter name " + quote(tok.Value)
	}
	return quote(tok.Value)
}

// Descriptions of what may come next, for Error.Expected.
const (
	wantPolicy   = "a policy"
	wantArg      = "an argument"
	wantValue    = "a value"
	wantDuration = "a duration"
	wantOperator = "an operator"
)

// role is what a token does where it stands, as far as expected cares.
type role uint8

const (
	roleStart     role = iota // no token yet
	roleName                  // a name, with or without arguments to come
	roleThen                  // the keyword then, or &, | or >>
	roleUpTo                  // the keyword upto
	roleNum                   // a number argument
	roleBudget                // the duration after upto
	roleOpenCall              // the ( of a call
	roleOpenGroup             // the ( of a group
	roleComma                 // a , between arguments
	roleClose                 // a )
	roleField                 // a parameter name and its = or :
)

// expected says what the grammar accepts at byte offset off, judging from
// the tokens before it. The grammar is LL(1): the role of the previous
// token and the kind of the innermost open parenthesis decide.
func expected(src string, off int) string {
	l := lexState{src: src}
	var (
		calls []bool // for each open parenthesis: does it hold arguments?
		last  = roleStart
	)
	for {
		t, err := l.Next()
		if err != nil || t.EOF() || t.Pos.Offset >= off {
			break
		}
		// An operand has just ended: a name here is an operator keyword.
		operandEnd := last == roleName || last == roleClose || last == roleBudget
		switch {
		case t.Type == tokField:
			last = roleField
		case t.Type == tokNum && last == roleUpTo:
			last = roleBudget
		case t.Type == tokNum:
			last = roleNum
		case t.Type == tokIdent && operandEnd && strings.EqualFold(t.Value, "then"):
			last = roleThen
		case t.Type == tokIdent && operandEnd && strings.EqualFold(t.Value, "upto"):
			last = roleUpTo
		case t.Type == tokIdent:
			last = roleName
		case t.Value == "(":
			calls = append(calls, last == roleName)
			last = roleOpenGroup
			if calls[len(calls)-1] {
				last = roleOpenCall
			}
		case t.Value == ")":
			if len(calls) > 0 {
				calls = calls[:len(calls)-1]
			}
			last = roleClose
		case t.Value == ",":
			last = roleComma
		default: // & | >> and a stray = or :
			last = roleThen
		}
	}
	closers := []string{"end of input"}
	switch {
	case len(calls) > 0 && calls[len(calls)-1]:
		closers = []string{`","`, `")"`}
	case len(calls) > 0:
		closers = []string{`")"`}
	}
	switch last {
	case roleName:
		return oneOf(append([]string{`"("`, wantOperator}, closers...))
	case roleUpTo:
		return wantDuration
	case roleNum:
		return oneOf([]string{`","`, `")"`})
	case roleBudget:
		return oneOf(closers)
	case roleOpenCall:
		return oneOf([]string{wantArg, `")"`})
	case roleComma:
		return wantArg
	case roleClose:
		return oneOf(append([]string{wantOperator}, closers...))
	case roleField:
		return wantValue
	}
	return wantPolicy // at the start, after an operator or an opening (
}

// oneOf joins alternatives as a person would: a, b or c.
func oneOf(alts []string) string {
	if len(alts) == 1 {
		return alts[0]
	}
	return strings.Join(alts[:len(alts)-1], ", ") + " or " + alts[len(alts)-1]
}
