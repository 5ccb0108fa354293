package parse

import (
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// Token types of the policy language. The lexer is hand-written: it is a
// single pass over the bytes, about a hundred times faster than participle's
// regular-expression lexer on a typical policy.
const (
	tokIdent lexer.TokenType = iota + 1 // a name or a keyword: Times, then, upto
	tokField                            // a parameter name and its "=" or ":": base=
	tokNum                              // an integer, duration or percentage: 5, 1m30s, 200%
	tokPunct                            // ( ) , & | + >> and a stray = or :
)

// lexDef is participle's lexer.Definition for the policy language. It holds
// the symbols table so that the grammar, built at package initialization,
// is initialized after the table.
type lexDef struct{ symbols map[string]lexer.TokenType }

var (
	_ lexer.Definition       = lexDef{}
	_ lexer.StringDefinition = lexDef{}
)

// symbols names the token types for the grammar's tags. It is never
// modified: participle asks for it on every parse, so it is built once.
var symbols = map[string]lexer.TokenType{
	"EOF":   lexer.EOF,
	"Ident": tokIdent,
	"Field": tokField,
	"Num":   tokNum,
	"Punct": tokPunct,
}

// Symbols returns the token types by name.
func (d lexDef) Symbols() map[string]lexer.TokenType { return d.symbols }

// Lex reads all of r and lexes it.
func (d lexDef) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxLen+1))
	if err != nil {
		return nil, err
	}
	return d.LexString(filename, string(b))
}

// LexString lexes src without copying it: token values are substrings.
func (lexDef) LexString(_ string, src string) (lexer.Lexer, error) {
	return &lexState{src: src}, nil
}

// lexState is the state of one lexing pass. Positions carry only the byte
// offset; line and column are computed from it when an error needs them.
type lexState struct {
	src    string
	off    int
	depth  int // open parentheses, bounded by MaxDepth
	tokens int // tokens so far, bounded by MaxTokens
}

// Next returns the next token, an EOF token at the end, or an *Error for a
// character that cannot start a token or a parenthesis too deep.
func (l *lexState) Next() (lexer.Token, error) {
	l.off = skipSpace(l.src, l.off)
	start := l.off
	if start >= len(l.src) {
		return lexer.EOFToken(lexer.Position{Offset: start}), nil
	}
	if l.tokens++; l.tokens > MaxTokens {
		return lexer.Token{}, newError(l.src, start, tokenAt(l.src, start),
			"policy has more than "+strconv.Itoa(MaxTokens)+" tokens", "")
	}
	c := l.src[start]
	switch {
	case isIdentStart(c):
		end := start + 1
		for end < len(l.src) && isIdentPart(l.src[end]) {
			end++
		}
		l.off = end
		// A name followed by "=" or ":" names a parameter. Deciding it here
		// keeps the grammar LL(1) and lets "then" name AndThen's parameter.
		if next := skipSpace(l.src, end); next < len(l.src) && (l.src[next] == '=' || l.src[next] == ':') {
			l.off = next + 1
			return l.token(tokField, start, end), nil
		}
		return l.token(tokIdent, start, end), nil
	case isDigit(c) || c == '.' || (c == '-' || c == '+') && start+1 < len(l.src) && (isDigit(l.src[start+1]) || l.src[start+1] == '.'):
		end := start + 1
		for end < len(l.src) {
			if n := numPart(l.src, end); n > 0 {
				end += n
				continue
			}
			break
		}
		l.off = end
		return l.token(tokNum, start, end), nil
	case c == '(':
		l.depth++
		if l.depth > MaxDepth {
			return lexer.Token{}, tooDeep(l.src, start)
		}
		l.off++
		return l.token(tokPunct, start, l.off), nil
	case c == ')':
		if l.depth > 0 {
			l.depth--
		}
		l.off++
		return l.token(tokPunct, start, l.off), nil
	case c == ',' || c == '&' || c == '|' || c == '+' || c == '=' || c == ':':
		l.off++
		return l.token(tokPunct, start, l.off), nil
	case c == '>' && start+1 < len(l.src) && l.src[start+1] == '>':
		l.off += 2
		return l.token(tokPunct, start, l.off), nil
	}
	_, size := utf8.DecodeRuneInString(l.src[start:])
	msg := fmt.Sprintf("unexpected character %q", l.src[start:start+size])
	if c == '>' {
		msg += `; did you mean ">>"?`
	}
	return lexer.Token{}, newError(l.src, start, l.src[start:start+size], msg, "")
}

func (l *lexState) token(t lexer.TokenType, start, end int) lexer.Token {
	return lexer.Token{Type: t, Value: l.src[start:end], Pos: lexer.Position{Offset: start}}
}

// skipSpace returns the offset of the first byte at or after off that is
// neither white space nor part of a comment.
func skipSpace(src string, off int) int {
	for off < len(src) {
		switch src[off] {
		case ' ', '\t', '\n', '\r':
			off++
		case '#':
			for off < len(src) && src[off] != '\n' {
				off++
			}
		default:
			return off
		}
	}
	return off
}

func isDigit(c byte) bool      { return '0' <= c && c <= '9' }
func isLetter(c byte) bool     { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func isIdentStart(c byte) bool { return isLetter(c) || c == '_' }
func isIdentPart(c byte) bool  { return isIdentStart(c) || isDigit(c) }

// numPart returns the length of the number character at src[off], or 0:
// digits, '.', letters and µ or μ for units, and '%'. The number's text is
// judged later, where its meaning is known.
func numPart(src string, off int) int {
	c := src[off]
	switch {
	case isDigit(c) || isLetter(c) || c == '.' || c == '%':
		return 1
	case c == 0xC2 && off+1 < len(src) && src[off+1] == 0xB5: // µ U+00B5
		return 2
	case c == 0xCE && off+1 < len(src) && src[off+1] == 0xBC: // μ U+03BC
		return 2
	}
	return 0
}
