package parse

import (
	"strings"
	"testing"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/google/go-cmp/cmp"
)

func TestLexer(t *testing.T) {
	const src = "Times(n = 3) # three\n| AndThen(then: Forever, first=x) >> -1.5µs upto 200%"
	want := []lexer.Token{
		{Type: tokIdent, Value: "Times", Pos: lexer.Position{Offset: 0}},
		{Type: tokPunct, Value: "(", Pos: lexer.Position{Offset: 5}},
		{Type: tokField, Value: "n", Pos: lexer.Position{Offset: 6}},
		{Type: tokNum, Value: "3", Pos: lexer.Position{Offset: 10}},
		{Type: tokPunct, Value: ")", Pos: lexer.Position{Offset: 11}},
		{Type: tokPunct, Value: "|", Pos: lexer.Position{Offset: 21}},
		{Type: tokIdent, Value: "AndThen", Pos: lexer.Position{Offset: 23}},
		{Type: tokPunct, Value: "(", Pos: lexer.Position{Offset: 30}},
		{Type: tokField, Value: "then", Pos: lexer.Position{Offset: 31}},
		{Type: tokIdent, Value: "Forever", Pos: lexer.Position{Offset: 37}},
		{Type: tokPunct, Value: ",", Pos: lexer.Position{Offset: 44}},
		{Type: tokField, Value: "first", Pos: lexer.Position{Offset: 46}},
		{Type: tokIdent, Value: "x", Pos: lexer.Position{Offset: 52}},
		{Type: tokPunct, Value: ")", Pos: lexer.Position{Offset: 53}},
		{Type: tokPunct, Value: ">>", Pos: lexer.Position{Offset: 55}},
		{Type: tokNum, Value: "-1.5µs", Pos: lexer.Position{Offset: 58}},
		{Type: tokIdent, Value: "upto", Pos: lexer.Position{Offset: 66}},
		{Type: tokNum, Value: "200%", Pos: lexer.Position{Offset: 71}},
		{Type: lexer.EOF, Pos: lexer.Position{Offset: 75}},
	}
	def := lexDef{symbols: symbols}
	for name, lex := range map[string]func() (lexer.Lexer, error){
		"string": func() (lexer.Lexer, error) { return def.LexString("", src) },
		"reader": func() (lexer.Lexer, error) { return def.Lex("", strings.NewReader(src)) },
	} {
		l, err := lex()
		if err != nil {
			t.Fatal(err)
		}
		got, err := lexer.ConsumeAll(l)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: tokens (-want +got):\n%s", name, diff)
		}
	}
}
