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
	sig    string // "(base, factor, cap)", for arity errors
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
// constants. It is never modified.
var builtins = [...]builtin{
	bTimes:          mk("Times", param{"n", "", kindInt, false}),
	bSpaced:         mk("Spaced", param{"every", "", kindDur, false}),
	bExponential:    mk("Exponential", pBase, param{"factor", "FactorPct", kindPct, false}, pCap),
	bFibonacci:      mk("Fibonacci", pBase),
	bJittered:       mk("Jittered", pInner, param{"low", "LowPct", kindPct, false}, param{"high", "HighPct", kindPct, false}),
	bUnion:          mk("Union", param{"a", "", kindPolicy, false}, param{"b", "", kindPolicy, false}),
	bIntersect:      mk("Intersect", param{"a", "", kindPolicy, false}, param{"b", "", kindPolicy, false}),
	bAndThen:        mk("AndThen", param{"first", "", kindPolicy, false}, param{"then", "", kindPolicy, false}),
	bUpTo:           mk("UpTo", pInner, param{"budget", "", kindDur, false}),
	bForever:        mk("Forever"),
	bCapped:         mk("Capped", pInner, param{"max", "", kindDur, false}),
	bDecorrelated:   mk("Decorrelated", pBase, pCap),
	bBackoff:        mk("backoff", pBase, pCap),
	bFullJitter:     mk("fulljitter", pBase, pCap),
	bLinear:         mk("Linear", pBase, param{"step", "", kindDur, true}),
	bRandom:         mk("Random", param{"lo", "", kindDur, false}, param{"hi", "", kindDur, false}),
	bSum:            mk("Sum", param{"a", "", kindPolicy, false}, param{"b", "", kindPolicy, false}),
	bWhileBelow:     mk("WhileBelow", pInner, param{"limit", "", kindDur, false}),
	bDecorrelatedV2: mk("DecorrelatedV2", pBase),
	bResetAfter:     mk("ResetAfter", pInner, param{"after", "", kindDur, false}),
}

func mk(name string, params ...param) builtin {
	if len(params) > maxParams {
		panic("parse: " + name + " takes more than maxParams parameters")
	}
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.name
		if p.optional {
			names[i] = "[" + p.name + "]"
		}
	}
	return builtin{name: name, params: params, sig: "(" + strings.Join(names, ", ") + ")"}
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
