package parse

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

var _ participle.Parseable = (*astAtom)(nil)

// Parse reads an atom, call | "(" policy ")". participle calls it through
// the participle.Parseable interface wherever the grammar has an atom, and
// nestedPolicy calls it for the first atom of a policy in parentheses. It
// returns participle.NextMatch, having consumed nothing, when the next
// token cannot start an atom, and an error at the first token that cannot
// continue it.
//
// Parse recurses, directly or through the grammar, only past a "(", and
// the lexer has already bounded the nesting of parentheses by MaxDepth, so
// the recursion is bounded too.
func (a *astAtom) Parse(lex *lexer.PeekingLexer) error {
	t := lex.Peek()
	switch {
	case t.Type == tokIdent:
		a.Name = *lex.Next()
		if !isPunct(lex.Peek(), "(") {
			return nil
		}
		lex.Next()
		if isPunct(lex.Peek(), ")") {
			lex.Next()
			return nil
		}
		for {
			a.Args = append(a.Args, astArg{})
			if err := a.Args[len(a.Args)-1].parse(lex); err != nil {
				return err
			}
			t := lex.Next()
			if isPunct(t, ")") {
				return nil
			}
			if !isPunct(t, ",") {
				return unexpected(t)
			}
		}
	case isPunct(t, "("):
		a.Open = *lex.Next()
		p, err := nestedPolicy(lex)
		a.Group = p
		if err != nil {
			return err
		}
		if t := lex.Next(); !isPunct(t, ")") {
			return unexpected(t)
		}
		return nil
	}
	return participle.NextMatch
}

// parse reads an argument: [ field ] ( policy | number ).
func (a *astArg) parse(lex *lexer.PeekingLexer) error {
	if lex.Peek().Type == tokField {
		a.Field = *lex.Next()
	}
	if lex.Peek().Type == tokNum {
		a.Num = *lex.Next()
		return nil
	}
	p, err := nestedPolicy(lex)
	a.Policy = p
	return err
}

// nestedPolicy reads a policy inside parentheses up to the first token
// that cannot continue it, which the caller checks: its first atom by
// hand and the chain after it, if any, with the grammar. Only "," or ")"
// may follow a nested policy, and neither can start a chain.
func nestedPolicy(lex *lexer.PeekingLexer) (*astPolicy, error) {
	p := &astPolicy{Head: new(astAtom)}
	if err := p.Head.Parse(lex); err != nil {
		if err == participle.NextMatch {
			err = unexpected(lex.Peek())
		}
		return nil, err
	}
	if t := lex.Peek(); isPunct(t, ",") || isPunct(t, ")") {
		return p, nil
	}
	c, err := chain.ParseFromLexer(lex, participle.AllowTrailing(true))
	if c != nil {
		p.astChain = *c
	}
	return p, err
}

// isPunct reports whether t is the punctuation s.
func isPunct(t *lexer.Token, s string) bool { return t.Type == tokPunct && t.Value == s }

// unexpected is the error for a token that cannot continue what Parse is
// reading. syntaxError turns it into an *Error saying what was expected.
func unexpected(t *lexer.Token) error {
	return &participle.UnexpectedTokenError{Unexpected: *t}
}
