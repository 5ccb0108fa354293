package parse

import (
	"sync"

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
// It is read in an equivalent flat form,
//
//	policy  = atom { op atom } [ "upto" duration ]
//	op      = "&" | "|" | "+" | "then" | ">>"
//	atom    = call | "(" policy ")"
//
// into the tree below: a policy is a chain of atoms joined by operators,
// and the builder applies the four levels of precedence (+ over & over |
// over then) and the nesting (+, & and | to the left, then to the right).
// The language is the same, with fewer productions.
//
// participle provides the lexer interface that the hand-written lexer
// (lexer.go) implements, the token stream and the parser's entry point.
// The grammar itself is read by hand, by the Parse method of the root
// (atom.go), which participle calls through its Parseable interface:
// participle's own reading of a grammar, from struct tags by reflection,
// allocates for every group and alternative it tries, and took more than
// half of Parse's time and most of its allocations. grammar_ref_test.go
// holds the grammar in participle's tags, and checks the reader against
// it.
//
// The lexer turns a name followed by "=" or ":" into a single Field token,
// so every choice is decided by its first token.

// astPolicy is policy: atom chain.
type astPolicy struct {
	Head *astAtom
	astChain
}

// astChain is the rest of a policy after its first atom:
// { op atom } [ "upto" duration ].
type astChain struct {
	Tail   []*astOp
	UpTo   lexer.Token
	Budget lexer.Token
}

// astOp is an operator and the atom after it.
type astOp struct {
	Op  lexer.Token
	Rhs *astAtom
}

// astAtom is call | "(" policy ")". Args is empty both for a name without
// parentheses and for empty parentheses.
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

// grammar reads a whole policy into its syntax tree.
var grammar policyGrammar

type policyGrammar struct{}

// rootParser is participle's parser for the root. It is built on first
// use, not when the package is initialized: a program that imports parse
// without parsing does not pay for it. participle parsers are safe for
// concurrent use.
var rootParser = sync.OnceValue(func() *participle.Parser[astRoot] {
	return participle.MustBuild[astRoot](participle.Lexer(lexDef{symbols: symbols}))
})

// allowTrailing lets astRoot.Parse stop at an error before the end of the
// input; it checks the end itself.
var allowTrailing = []participle.ParseOption{participle.AllowTrailing(true)}

// ParseString lexes and reads src. An error is the lexer's *Error or
// participle's UnexpectedTokenError, which syntaxError converts.
func (policyGrammar) ParseString(filename, src string) (*astPolicy, error) {
	root, err := rootParser().ParseString(filename, src, allowTrailing...)
	if err != nil {
		return nil, err
	}
	if root.err != nil {
		return nil, root.err
	}
	return &root.astPolicy, nil
}
