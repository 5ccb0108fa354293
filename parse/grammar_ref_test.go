package parse

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// The reference grammar is the whole flat grammar in participle's tags,
// atoms and arguments included: astAtom.Parse must read exactly the
// language it describes, into the same tree, and fail at the same token.

type refPolicy struct {
	Head   *refAtom    `parser:"@@"`
	Tail   []*refOp    `parser:"@@*"`
	UpTo   lexer.Token `parser:"( @'upto':Ident"`
	Budget lexer.Token `parser:"  @Num )?"`
}

type refOp struct {
	Op  lexer.Token `parser:"@( '&' | '|' | '+' | 'then':Ident | '>>' )"`
	Rhs *refAtom    `parser:"@@"`
}

type refAtom struct {
	Name  lexer.Token `parser:"(  @Ident"`
	Args  []*refArg   `parser:"   ( '(' ( @@ ( ',' @@ )* )? ')' )?"`
	Open  lexer.Token `parser:"| @'('"`
	Group *refPolicy  `parser:"  @@ ')' )"`
}

type refArg struct {
	Field lexer.Token `parser:"@Field? ("`
	refPolicy
	Num lexer.Token `parser:"| @Num )"`
}

var refGrammar = participle.MustBuild[refPolicy](
	participle.Lexer(lexDef{symbols: symbols}),
	participle.CaseInsensitive("Ident"),
	participle.UseLookahead(0),
)

// ast converts a reference tree to the parser's.
func (p *refPolicy) ast() *astPolicy {
	if p == nil || p.Head == nil {
		return nil
	}
	out := &astPolicy{Head: p.Head.ast(), astChain: astChain{UpTo: p.UpTo, Budget: p.Budget}}
	for _, op := range p.Tail {
		out.Tail = append(out.Tail, &astOp{Op: op.Op, Rhs: op.Rhs.ast()})
	}
	return out
}

func (a *refAtom) ast() *astAtom {
	out := &astAtom{Name: a.Name, Open: a.Open, Group: a.Group.ast()}
	for _, arg := range a.Args {
		out.Args = append(out.Args, astArg{Field: arg.Field, Policy: arg.refPolicy.ast(), Num: arg.Num})
	}
	return out
}

// checkAgainstReference parses src with both grammars and compares the
// trees, or the errors as Parse reports them.
func checkAgainstReference(t interface{ Fatalf(string, ...any) }, src string) {
	want, werr := refGrammar.ParseString("", src)
	got, gerr := grammar.ParseString("", src)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%q: reference error %v, error %v", src, werr, gerr)
	}
	if werr != nil {
		w, g := syntaxError(src, werr), syntaxError(src, gerr)
		if diff := cmp.Diff(w, g, cmpopts.IgnoreUnexported(Error{})); diff != "" {
			t.Fatalf("%q: error (-reference +got):\n%s", src, diff)
		}
		return
	}
	if diff := cmp.Diff(want.ast(), got, cmpopts.EquateEmpty(), cmp.AllowUnexported(astPolicy{})); diff != "" {
		t.Fatalf("%q: tree (-reference +got):\n%s", src, diff)
	}
}

// TestPropAtomMatchesGrammar checks astAtom.Parse against the reference
// grammar on generated policies, some with a few tokens deleted, inserted
// or replaced.
func TestPropAtomMatchesGrammar(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		toks := genPolicy(t, 2)
		for range rapid.IntRange(0, 3).Draw(t, "mutations") {
			i := rapid.IntRange(0, len(toks)).Draw(t, "at")
			w := rapid.SampledFrom(genWords).Draw(t, "word")
			switch op := rapid.IntRange(0, 2).Draw(t, "op"); {
			case op == 0 && i < len(toks):
				toks = append(toks[:i:i], toks[i+1:]...)
			case op == 1 && i < len(toks):
				toks[i] = w
			default:
				toks = append(toks[:i:i], append([]string{w}, toks[i:]...)...)
			}
		}
		checkAgainstReference(t, strings.Join(toks, " "))
	})
}

// genWords are the tokens that genPolicy uses and mutations insert.
var genWords = []string{
	"Times", "Forever", "then", "THEN", "upto", "x", "(", ")", ",",
	"&", "|", ">>", "5", "1s", "200%", "n=", "then:", "upto =",
}

// genPolicy draws the tokens of a policy nested at most depth levels.
func genPolicy(t *rapid.T, depth int) []string {
	toks := genAtom(t, depth)
	for range rapid.IntRange(0, 2).Draw(t, "ops") {
		toks = append(toks, rapid.SampledFrom([]string{"&", "|", ">>", "then", "Then"}).Draw(t, "op"))
		toks = append(toks, genAtom(t, depth)...)
	}
	if rapid.Bool().Draw(t, "upto") {
		toks = append(toks, "upto", rapid.SampledFrom([]string{"1s", "5", "200%"}).Draw(t, "budget"))
	}
	return toks
}

func genAtom(t *rapid.T, depth int) []string {
	name := rapid.SampledFrom([]string{"Times", "Forever", "then", "upto", "x"}).Draw(t, "name")
	switch n := rapid.IntRange(0, 3).Draw(t, "atom"); {
	case n == 0 || depth == 0:
		return []string{name}
	case n == 1:
		return append(append([]string{"("}, genPolicy(t, depth-1)...), ")")
	}
	toks := []string{name, "("}
	for i := range rapid.IntRange(0, 3).Draw(t, "args") {
		if i > 0 {
			toks = append(toks, ",")
		}
		if rapid.Bool().Draw(t, "named") {
			toks = append(toks, rapid.SampledFrom([]string{"n=", "then:", "upto ="}).Draw(t, "field"))
		}
		if rapid.Bool().Draw(t, "num") {
			toks = append(toks, rapid.SampledFrom([]string{"5", "1s", "200%"}).Draw(t, "num"))
		} else {
			toks = append(toks, genPolicy(t, depth-1)...)
		}
	}
	return append(toks, ")")
}

// TestAtomMatchesGrammar checks astAtom.Parse against the reference
// grammar on the policies and errors of the other tests.
func TestAtomMatchesGrammar(t *testing.T) {
	for _, src := range []string{
		"Intersect(backoff(100, 30000), times(5))",
		"AndThen(Times(3), Spaced(60000))",
		"Union(Intersect(Jittered(Exponential(100ms, 200%, 30s), 50%, 100%), Times(5)), AndThen(Capped(Fibonacci(1s), 10s), UpTo(Spaced(1m), 1h)))",
		"backoff(100ms, 30s) & times(5) | forever then spaced(1m) upto 1h",
		"Exponential(base=100ms, factor: 200%, cap=30s)",
		"AndThen(first=Times(3), then=Forever)",
		"# comment\n(Times(2)\n  & (Forever | Times(3)))  # more\n",
		"Forever()", "Times(3 4)", "Times(3", "Times(3,)", "Times(,3)", "Times(n=)",
		"Times(3) upto", "Times(3) upto 1s upto 2s", "x = 3", "(Times(3)", "Times(3))",
		"(Forever upto)", "(Forever upto 1s)", "Jittered(Forever Forever, 1, 2)",
		"Times(3) then then Forever", "& Forever", "Times(3) = 4", "", "()", "(,)",
		"Capped(Forever, max = 1s, inner: Times(2), max: 2s)", "Times(3) $",
		strings.Repeat("(", MaxDepth) + "Forever" + strings.Repeat(")", MaxDepth),
		strings.Repeat("(", MaxDepth+1) + "Forever" + strings.Repeat(")", MaxDepth+1),
	} {
		checkAgainstReference(t, src)
	}
}

// TestAtomMatchesGrammarOnCorpus checks astAtom.Parse against the
// reference grammar on FuzzParse's corpus.
func TestAtomMatchesGrammarOnCorpus(t *testing.T) {
	for _, src := range fuzzCorpus(t, filepath.Join("testdata", "fuzz", "FuzzParse")) {
		checkAgainstReference(t, src)
	}
}

// fuzzCorpus returns the strings of the corpus files in dir, each of the
// form
//
//	go test fuzz v1
//	string("...")
func fuzzCorpus(t *testing.T, dir string) []string {
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus in %s: %v", dir, err)
	}
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, arg, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
		src, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(arg, "string("), ")"))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, src)
	}
	return out
}
