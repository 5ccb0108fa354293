package parse

import (
	"strings"
)

// kind is what a parameter accepts.
type kind uint8

const (
	kindPolicy kind = iota // a policy
	kindInt                // an integer
	kindDur                // a duration; a bare integer means milliseconds
	kindPct                // a percentage, with or without %
)

func (k kind) String() string {
	switch k {
	case kindInt:
		return "an integer"
	case kindDur:
		return "a duration"
	case kindPct:
		return "a percentage"
	}
	return "a policy"
}

// param is one parameter of a name: its name in the language, the Go field
// name also accepted for it (when different), and what it accepts.
type param struct {
	name, goName string
	kind         kind
	// optional says the argument may be left out, from the last; the
	// builder then gives it its default (Linear's step: its base).
	optional bool
}

// builtin is a name of the language: a variant or a helper.
type builtin struct {
	name   string // canonical spelling, as printed
	params []param
}

// Indexes into builtins, used by the builder's switch.
const (
	bTimes = iota
	bSpaced
	bExponential
	bFibonacci
	bJittered
	bUnion
	bIntersect
	bAndThen
	bUpTo
	bForever
	bCapped
	bDecorrelated
	bBackoff
	bFullJitter
	bLinear
	bRandom
	bSum
	bWhileBelow
	bDecorrelatedV2
	bResetAfter
)

var (
	pInner = param{"inner", "", kindPolicy, false}
	pBase  = param{"base", "", kindDur, false}
	pCap   = param{"cap", "", kindDur, false}
)

// builtins lists every name of the language, in the order of the b
// constants. It is never modified, and is data the compiler lays out: the
// package's initialization does no work for it.
var builtins = [...]builtin{
	bTimes:          {"Times", []param{{"n", "", kindInt, false}}},
	bSpaced:         {"Spaced", []param{{"every", "", kindDur, false}}},
	bExponential:    {"Exponential", []param{pBase, {"factor", "FactorPct", kindPct, false}, pCap}},
	bFibonacci:      {"Fibonacci", []param{pBase}},
	bJittered:       {"Jittered", []param{pInner, {"low", "LowPct", kindPct, false}, {"high", "HighPct", kindPct, false}}},
	bUnion:          {"Union", []param{{"a", "", kindPolicy, false}, {"b", "", kindPolicy, false}}},
	bIntersect:      {"Intersect", []param{{"a", "", kindPolicy, false}, {"b", "", kindPolicy, false}}},
	bAndThen:        {"AndThen", []param{{"first", "", kindPolicy, false}, {"then", "", kindPolicy, false}}},
	bUpTo:           {"UpTo", []param{pInner, {"budget", "", kindDur, false}}},
	bForever:        {"Forever", nil},
	bCapped:         {"Capped", []param{pInner, {"max", "", kindDur, false}}},
	bDecorrelated:   {"Decorrelated", []param{pBase, pCap}},
	bBackoff:        {"backoff", []param{pBase, pCap}},
	bFullJitter:     {"fulljitter", []param{pBase, pCap}},
	bLinear:         {"Linear", []param{pBase, {"step", "", kindDur, true}}},
	bRandom:         {"Random", []param{{"lo", "", kindDur, false}, {"hi", "", kindDur, false}}},
	bSum:            {"Sum", []param{{"a", "", kindPolicy, false}, {"b", "", kindPolicy, false}}},
	bWhileBelow:     {"WhileBelow", []param{pInner, {"limit", "", kindDur, false}}},
	bDecorrelatedV2: {"DecorrelatedV2", []param{pBase}},
	bResetAfter:     {"ResetAfter", []param{pInner, {"after", "", kindDur, false}}},
}

// sig returns the parameters as an arity error shows them: "(base,
// factor, cap)", an optional one in brackets.
func (b *builtin) sig() string {
	var s strings.Builder
	s.WriteByte('(')
	for i, p := range b.params {
		if i > 0 {
			s.WriteString(", ")
		}
		if p.optional {
			s.WriteString("[" + p.name + "]")
		} else {
			s.WriteString(p.name)
		}
	}
	s.WriteByte(')')
	return s.String()
}

// required returns how many of b's parameters must be given.
func (b *builtin) required() int {
	n := len(b.params)
	for n > 0 && b.params[n-1].optional {
		n--
	}
	return n
}

// lookup returns the index into builtins of name, matched
// case-insensitively, or -1.
func lookup(name string) int {
	for i := range builtins {
		if len(builtins[i].name) == len(name) && strings.EqualFold(builtins[i].name, name) {
			return i
		}
	}
	return -1
}

// paramIndex returns the index of the parameter of b called field, matched
// case-insensitively against both its names, or -1.
func (b *builtin) paramIndex(field string) int {
	for i, p := range b.params {
		if strings.EqualFold(p.name, field) || p.goName != "" && strings.EqualFold(p.goName, field) {
			return i
		}
	}
	return -1
}

// names returns the canonical spellings of the builtins.
func names() []string {
	out := make([]string, len(builtins))
	for i := range builtins {
		out[i] = builtins[i].name
	}
	return out
}

// paramNames returns the names a parameter of b may be given by.
func (b *builtin) paramNames() []string {
	var out []string
	for _, p := range b.params {
		out = append(out, p.name)
		if p.goName != "" {
			out = append(out, p.goName)
		}
	}
	return out
}
