package parse

import (
	"cmp"
	"slices"
	"time"

	"github.com/alecthomas/participle/v2/lexer"
)

// BareDuration is a bare integer written where a duration belongs, such as
// the 1 of spaced(1). The language reads it as milliseconds, which is
// rarely what a small number meant.
type BareDuration struct {
	Offset int           // byte offset of the number in the source
	Text   string        // the number as written, such as "1"
	Value  time.Duration // what the language reads: Text milliseconds
}

// BareDurations returns the bare integers that src writes where a duration
// belongs, in source order. A policy that does not parse yields the error
// Parse returns.
func BareDurations(src string) ([]BareDuration, error) {
	if _, err := Parse(src); err != nil {
		return nil, err
	}
	tree, err := grammar.ParseString("", src)
	if err != nil {
		return nil, syntaxError(src, err) // not reached: Parse succeeded
	}
	var out []BareDuration
	b := builder{src: src, onDur: func(tok lexer.Token) {
		if isPlainInt(tok.Value) {
			d, _ := parseDur(tok.Value)
			out = append(out, BareDuration{Offset: tok.Pos.Offset, Text: tok.Value, Value: d})
		}
	}}
	if _, err := b.policy(tree); err != nil {
		return nil, err // not reached: Parse succeeded
	}
	// Named arguments are read in parameter order.
	slices.SortFunc(out, func(a, b BareDuration) int { return cmp.Compare(a.Offset, b.Offset) })
	return out, nil
}
