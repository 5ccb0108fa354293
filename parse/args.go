package parse

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/recur-go/recur/internal/suggest"
)

// maxParams is the most parameters a name takes.
const maxParams = 3

// bind matches the arguments of call c to the parameters of def, by
// position and then by name, and returns them in parameter order, nil for
// a parameter left out and past the last one.
func (b *builder) bind(c *astAtom, def *builtin) ([maxParams]*astArg, error) {
	var out [maxParams]*astArg
	if len(c.Args) < def.required() || len(c.Args) > len(def.params) {
		msg := def.name + " takes " + def.sig()
		if len(def.params) == 0 {
			msg = def.name + " takes no arguments"
		}
		msg += "; got " + strconv.Itoa(len(c.Args)) + " argument"
		if len(c.Args) != 1 {
			msg += "s"
		}
		return out, newError(b.src, c.Name.Pos.Offset, c.Name.Value, msg, "")
	}
	var named bool
	for i := range c.Args {
		a := &c.Args[i]
		if a.Field.Type == 0 {
			if named {
				off := a.valueOffset()
				return out, newError(b.src, off, tokenAt(b.src, off), def.name+": positional argument after a named one", "")
			}
			out[i] = a
			continue
		}
		named = true
		field := a.Field.Value
		j := def.paramIndex(field)
		if j < 0 {
			msg := def.name + " has no parameter " + quote(field)
			if s := suggest.Closest(field, def.paramNames()); s != "" {
				msg += "; did you mean " + strconv.Quote(s) + "?"
			}
			return out, newError(b.src, a.Field.Pos.Offset, field, msg, "")
		}
		if out[j] != nil {
			return out, newError(b.src, a.Field.Pos.Offset, field, def.name+": "+def.params[j].name+" is given twice", "")
		}
		out[j] = a
	}
	for j, p := range def.params {
		if out[j] == nil && !p.optional {
			return out, newError(b.src, c.Name.Pos.Offset, c.Name.Value, def.name+" takes "+def.sig()+"; "+p.name+" is missing", "")
		}
	}
	return out, nil
}

// valueOffset returns the offset of the argument's value.
func (a *astArg) valueOffset() int {
	switch {
	case a.Num.Type != 0:
		return a.Num.Pos.Offset
	case a.Policy.Head.Group != nil:
		return a.Policy.Head.Open.Pos.Offset
	}
	return a.Policy.Head.Name.Pos.Offset
}

// errKind marks a number given where a policy or another kind of number
// belongs; orWrongKind turns it into a message naming the parameter.
var errKind = errors.New("wrong kind")

// durationArg reads a duration argument.
func (b *builder) durationArg(a *astArg) (time.Duration, error) {
	if a.Num.Type == 0 || strings.HasSuffix(a.Num.Value, "%") {
		return 0, errKind
	}
	return b.duration(a.Num)
}

// duration reads a duration token.
func (b *builder) duration(n lexer.Token) (time.Duration, error) {
	d, msg := parseDur(n.Value)
	if msg != "" {
		return 0, newError(b.src, n.Pos.Offset, n.Value, msg, "")
	}
	if b.onDur != nil {
		b.onDur(n)
	}
	return d, nil
}

// integer reads an integer or a percentage argument: for a percentage, the
// whole percent and the ten-thousandths of a percent above it.
func (b *builder) integer(p param, a *astArg) (int, int, error) {
	text := a.Num.Value
	if a.Num.Type == 0 {
		return 0, 0, errKind
	}
	var (
		v, frac int
		msg     string
	)
	if p.kind == kindPct {
		if !isPlainDecimal(strings.TrimSuffix(text, "%")) {
			return 0, 0, errKind
		}
		v, frac, msg = parsePct(text)
	} else {
		if !isPlainInt(text) {
			return 0, 0, errKind
		}
		v, msg = parseInt(text)
	}
	if msg != "" {
		return 0, 0, newError(b.src, a.Num.Pos.Offset, text, msg, "")
	}
	return v, frac, nil
}

func (b *builder) orWrongKind(err error, def *builtin, p param, a *astArg) error {
	if err == errKind {
		return b.wrongKind(def, p, a)
	}
	return err
}

// wrongKind is the error for an argument of the wrong kind.
func (b *builder) wrongKind(def *builtin, p param, a *astArg) error {
	msg := def.name + ": " + p.name + " wants " + p.kind.String() + ", got "
	if a.Num.Type == 0 {
		msg += "a policy"
	} else {
		msg += clip(a.Num.Value)
	}
	off := a.valueOffset()
	return newError(b.src, off, tokenAt(b.src, off), msg, "")
}
