package parse

import (
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

var _ participle.Parseable = (*astRoot)(nil)

// astRoot is the root of the grammar: a whole policy, read by its Parse
// method. It holds the error of the parse beside the tree because
// participle turns an error that a root Parseable returns into a
// ParseError that keeps only its text, and syntaxError needs the token.
type astRoot struct {
	astPolicy
	err error
}

// Parse reads a whole policy, up to the end of the input, and keeps the
// first error in r.err. It returns nil: the grammar is parsed with
// participle.AllowTrailing, so participle leaves the tokens after an
// error alone as well.
func (r *astRoot) Parse(lex *lexer.PeekingLexer) error {
	rd := newReader(lex)
	r.err = rd.policy(&r.astPolicy)
	if r.err == nil {
		if t := lex.Peek(); !t.EOF() {
			r.err = unexpected(t)
		}
	}
	return nil
}

// reader reads the grammar of grammar.go by recursive descent, one token of
// lookahead, from participle's token stream. The grammar is LL(1), so
// reading stops, with an error, at the first token that cannot continue
// what is read: the token participle's reading of the same grammar fails
// at (grammar_ref_test.go checks that the trees and errors are the same).
//
// The nodes of the tree are carved out of slabs, one per node type, sized
// from a count of the tokens before reading: a policy takes at most five
// allocations whatever its size. A chain's operators and a call's
// arguments are gathered in an array on the Go stack while they are read
// (the policies nested in them are read in between) and copied to their
// slab when complete.
//
// Reading recurses only past a "(", and the lexer has already bounded the
// nesting of parentheses by MaxDepth, so the recursion is bounded too.
type reader struct {
	lex *lexer.PeekingLexer

	atoms    []astAtom
	policies []astPolicy
	ops      []astOp
	tails    []*astOp
	args     []astArg
}

// newReader sizes the slabs from the tokens ahead of lex, which it leaves
// where it was. The counts are exact for a policy that parses and gives
// no call more than maxParams arguments; when one is short, carve makes
// another slab.
func newReader(lex *lexer.PeekingLexer) reader {
	var atoms, groups, calls, ops, args, nums int
	prev := cOther
	cp := lex.MakeCheckpoint()
	for t := lex.Next(); !t.EOF(); t = lex.Next() {
		c := class(t)
		operand := prev == cCallName || prev == cClose // as in policy: an operator may follow
		switch {
		case operand && (c == cThen || c == cOp):
			ops++
			c = cOp
		case operand && c == cUpto:
		case c == cName || c == cThen || c == cUpto:
			atoms++
			c = cCallName
		case c == cOpen && prev == cCallName:
			calls++
			args++ // taken back at a ")" right after
			c = cCallOpen
		case c == cOpen:
			atoms++
			groups++
		case c == cComma:
			args++
		case c == cClose && prev == cCallOpen:
			args--
		case c == cNum && (prev == cCallOpen || prev == cComma || prev == cField):
			nums++
		}
		prev = c
	}
	lex.LoadCheckpoint(cp)
	// A call with more arguments than any name takes is an arity error:
	// its arguments stay in the slice they were gathered in.
	args = min(args, maxParams*calls)
	return reader{
		lex:      lex,
		atoms:    make([]astAtom, 0, atoms),
		policies: make([]astPolicy, 0, max(groups+args-nums, 0)), // negative after a stray field
		ops:      make([]astOp, 0, ops),
		tails:    make([]*astOp, 0, ops),
		args:     make([]astArg, 0, args),
	}
}

// Token classes for newReader's count.
const (
	cOther    = iota
	cName     // a name that is neither then nor upto
	cThen     // then, an operator or a name
	cUpto     // upto, the keyword or a name
	cOp       // & | + >>, or then as an operator
	cOpen     // (
	cClose    // )
	cComma    // ,
	cNum      // a number
	cField    // a parameter name and its = or :
	cCallName // a name read as a call
	cCallOpen // the ( of a call
)

func class(t *lexer.Token) int {
	switch t.Type {
	case tokIdent:
		switch {
		case len(t.Value) != 4:
		case strings.EqualFold(t.Value, "then"):
			return cThen
		case strings.EqualFold(t.Value, "upto"):
			return cUpto
		}
		return cName
	case tokNum:
		return cNum
	case tokField:
		return cField
	case tokPunct:
		switch t.Value {
		case "(":
			return cOpen
		case ")":
			return cClose
		case ",":
			return cComma
		case "&", "|", "+", ">>":
			return cOp
		}
	}
	return cOther
}

// carve returns the next n elements of *slab, zeroed, with a capacity of n.
// When the slab is full it makes another, which the following nodes share.
func carve[T any](slab *[]T, n int) []T {
	s := *slab
	if len(s)+n > cap(s) {
		s = make([]T, 0, max(n, 2*cap(s)))
	}
	*slab = s[:len(s)+n]
	return s[len(s) : len(s)+n : len(s)+n]
}

// policy reads policy: atom { op atom } [ "upto" duration ], stopping at
// the first token that cannot continue it, which the caller checks.
func (r *reader) policy(p *astPolicy) error {
	p.Head = &carve(&r.atoms, 1)[0]
	if err := r.atom(p.Head); err != nil {
		return err
	}
	var buf [4]*astOp
	tail := buf[:0]
	for isOp(r.lex.Peek()) {
		op := &carve(&r.ops, 1)[0]
		op.Op = *r.lex.Next()
		op.Rhs = &carve(&r.atoms, 1)[0]
		if err := r.atom(op.Rhs); err != nil {
			return err
		}
		tail = append(tail, op)
	}
	if len(tail) > 0 {
		p.Tail = carve(&r.tails, len(tail))
		copy(p.Tail, tail)
	}
	if t := r.lex.Peek(); t.Type == tokIdent && strings.EqualFold(t.Value, "upto") {
		p.UpTo = *r.lex.Next()
		if t := r.lex.Peek(); t.Type != tokNum {
			return unexpected(t)
		}
		p.Budget = *r.lex.Next()
	}
	return nil
}

// isOp reports whether t is an operator between atoms.
func isOp(t *lexer.Token) bool {
	switch t.Type {
	case tokPunct:
		switch t.Value {
		case "&", "|", "+", ">>":
			return true
		}
	case tokIdent:
		return len(t.Value) == 4 && strings.EqualFold(t.Value, "then")
	}
	return false
}

// atom reads an atom, call | "(" policy ")". Args is empty both for a name
// without parentheses and for empty parentheses.
func (r *reader) atom(a *astAtom) error {
	t := r.lex.Peek()
	switch {
	case t.Type == tokIdent:
		a.Name = *r.lex.Next()
		if !isPunct(r.lex.Peek(), "(") {
			return nil
		}
		r.lex.Next()
		if isPunct(r.lex.Peek(), ")") {
			r.lex.Next()
			return nil
		}
		var buf [maxParams]astArg // more spill to the heap: an arity error
		args := buf[:0]
		for {
			args = append(args, astArg{})
			if err := r.arg(&args[len(args)-1]); err != nil {
				return err
			}
			t := r.lex.Next()
			if isPunct(t, ")") {
				break
			}
			if !isPunct(t, ",") {
				return unexpected(t)
			}
		}
		if len(args) > len(buf) {
			a.Args = args // on the heap already
			return nil
		}
		a.Args = carve(&r.args, len(args))
		copy(a.Args, args)
		return nil
	case isPunct(t, "("):
		a.Open = *r.lex.Next()
		a.Group = &carve(&r.policies, 1)[0]
		if err := r.policy(a.Group); err != nil {
			return err
		}
		if t := r.lex.Next(); !isPunct(t, ")") {
			return unexpected(t)
		}
		return nil
	}
	return unexpected(t)
}

// arg reads an argument: [ field ] ( policy | number ).
func (r *reader) arg(a *astArg) error {
	if r.lex.Peek().Type == tokField {
		a.Field = *r.lex.Next()
	}
	if r.lex.Peek().Type == tokNum {
		a.Num = *r.lex.Next()
		return nil
	}
	a.Policy = &carve(&r.policies, 1)[0]
	return r.policy(a.Policy)
}

// isPunct reports whether t is the punctuation s.
func isPunct(t *lexer.Token, s string) bool { return t.Type == tokPunct && t.Value == s }

// unexpected is the error for a token that cannot continue what is read.
// syntaxError turns it into an *Error saying what was expected.
func unexpected(t *lexer.Token) error {
	return &participle.UnexpectedTokenError{Unexpected: *t}
}
