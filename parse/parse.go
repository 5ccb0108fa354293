package parse

import (
	"errors"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
	"github.com/recur-go/recur/schedule"
)

// Limits on the input, so that hostile or broken configuration ends in an
// error instead of exhausting memory or the stack.
const (
	// MaxLen is the longest policy, in bytes, that Parse accepts.
	MaxLen = 64 << 10
	// MaxDepth is the deepest nesting that Parse accepts, counted both in
	// parentheses and in levels of the resulting schedule. Schedules nested
	// deeper than this print, but do not parse back.
	MaxDepth = 64
)

// Parse reads a policy and returns the schedule it describes, validated by
// schedule.Validate. Any error is an *Error that tells where the problem is.
func Parse(src string) (schedule.Schedule, error) {
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
		if !errors.As(err, &verr) {
			return nil, err
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
			if s := suggest(tok.Value, []string{"then", "upto"}); s != "" {
				msg := "unknown operator " + strconv.Quote(tok.Value) + "; did you mean " + strconv.Quote(s) + "?"
				return newError(src, tok.Pos.Offset, tok.Value, msg, "")
			}
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
		return "parameter name " + strconv.Quote(tok.Value)
	}
	return strconv.Quote(tok.Value)
}

// Descriptions of what may come next, for Error.Expected.
const (
	wantPolicy   = "a policy"
	wantArg      = "an argument"
	wantValue    = "a value"
	wantDuration = "a duration"
	wantOperator = "an operator"
)

// expected says what the grammar accepts at byte offset off, judging from
// the tokens before it. The grammar is LL(1): the previous token and the
// kind of the innermost open parenthesis decide.
func expected(src string, off int) string {
	l := lexState{src: src}
	var (
		calls       []bool // for each open parenthesis: does it hold arguments?
		prev, prev2 lexer.Token
	)
	for {
		t, err := l.Next()
		if err != nil || t.EOF() || t.Pos.Offset >= off {
			break
		}
		if t.Type == tokPunct && t.Value == "(" {
			calls = append(calls, prev.Type == tokIdent)
		} else if t.Type == tokPunct && t.Value == ")" && len(calls) > 0 {
			calls = calls[:len(calls)-1]
		}
		prev2, prev = prev, t
	}
	inCall := len(calls) > 0 && calls[len(calls)-1]
	closer := "end of input"
	switch {
	case inCall:
		closer = `"," or ")"`
	case len(calls) > 0:
		closer = `")"`
	}
	operandEnd := func(t lexer.Token) bool {
		return t.Type == tokIdent || t.Type == tokPunct && t.Value == ")"
	}
	switch prev.Type {
	case 0:
		return wantPolicy
	case tokField:
		return wantValue
	case tokNum:
		if prev2.Type == tokIdent && strings.EqualFold(prev2.Value, "upto") {
			return closer
		}
		return `"," or ")"`
	case tokIdent:
		if !operandEnd(prev2) {
			return `"(", ` + wantOperator + " or " + closer // a name
		}
		switch strings.ToLower(prev.Value) {
		case "then":
			return wantPolicy
		case "upto":
			return wantDuration
		}
		return `"(", ` + wantOperator + " or " + closer
	}
	switch prev.Value {
	case "(":
		if inCall {
			return wantArg + ` or ")"`
		}
		return wantPolicy
	case ",":
		return wantArg
	case ")":
		return wantOperator + " or " + closer
	}
	return wantPolicy // after &, | or >>
}
