package parse

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// The grammar (docs/language.md) is
//
//	policy  = seq [ "upto" duration ]
//	seq     = union { ("then" | ">>") union }
//	union   = inter { "|" inter }
//	inter   = sum   { "&" sum }
//	sum     = atom  { "+" atom }
//	atom    = call | "(" policy ")"
//	call    = name [ "(" [ arg { "," arg } ] ")" ]
//	arg     = [ field ("=" | ":") ] ( policy | duration | percent | integer )
//
// It is read in the equivalent flat form below: a policy is a chain of
// atoms joined by operators, and the builder applies the four levels of
// precedence (+ over & over | over then) and the nesting (+, & and | to
// the left, then to the right). The language is the same, with fewer productions.
//
// participle reads the chains, { op atom } [ "upto" duration ], from the
// grammar in the struct tags below. The atom, a call with its arguments or
// a policy in parentheses, is read by its own Parse method (atom.go),
// which participle calls through its Parseable interface. participle
// interprets the grammar by reflection and allocates for every group and
// alternative it tries, most of them in the atoms and their arguments:
// reading those by hand makes Parse four to ten times faster. A policy
// inside parentheses is read the same way: its first atom by hand and the
// chain after it, when there is one, by participle.
//
// The lexer turns a name followed by "=" or ":" into a single Field token,
// so every choice is decided by its first token.

// astPolicy is policy: atom chain.
type astPolicy struct {
	Head *astAtom `parser:"@@"`
	astChain
}

// astChain is the rest of a policy after its first atom:
// { op atom } [ "upto" duration ].
type astChain struct {
	Tail   []*astOp    `parser:"@@*"`
	UpTo   lexer.Token `parser:"( @'upto':Ident"`
	Budget lexer.Token `parser:"  @Num )?"`
}

// astOp is an operator and the atom after it.
type astOp struct {
	Op  lexer.Token `parser:"@( '&' | '|' | '+' | 'then':Ident | '>>' )"`
	Rhs *astAtom    `parser:"@@"`
}

// astAtom is call | "(" policy ")", read by astAtom.Parse. Args is empty
// both for a name without parentheses and for empty parentheses.
type astAtom struct {
	Name  lexer.Token // the call's name
	Args  []astArg
	Open  lexer.Token // the group's "("
	Group *astPolicy
}

// astArg is [ field ] ( policy | number ): Policy is nil for a number.
type astArg struct {
	Field  lexer.Token
	Policy *astPolicy
	Num    lexer.Token
}

// grammar is the participle parser for a whole policy, and chain for the
// chain after an atom inside parentheses. Both are built once; participle
// parsers are safe for concurrent use.
var (
	grammar = participle.MustBuild[astPolicy](grammarOptions()...)
	chain   = participle.MustBuild[astChain](grammarOptions()...)
)

func grammarOptions() []participle.Option {
	return []participle.Option{
		participle.Lexer(lexDef{symbols: symbols}),
		participle.CaseInsensitive("Ident"),
		// Every choice is decided by its first token, so a branch is
		// committed once it has consumed one: an error past it is reported
		// where it is, not where the branch began.
		participle.UseLookahead(0),
	}
}
