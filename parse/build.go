package parse

import (
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/recur-go/recur/internal/suggest"
	"github.com/recur-go/recur/schedule"
)

// builder turns the syntax tree into a schedule. It checks names, arities,
// argument kinds, numbers and the depth of the result; schedule.Validate
// checks the values afterwards.
//
// When record is set, the builder also keeps a tree of source positions
// parallel to the schedule, so that a validation error can be traced from
// its Fields to the spot in the source. Parse builds once without it and,
// only when validation fails, once more with it: valid policies pay
// nothing for the positions.
type builder struct {
	src    string
	record bool
	nodes  []pnode
	onDur  func(tok lexer.Token) // if set, called with every duration token read
}

// pnode is the source of one schedule node: where it was written, the name
// to show in errors, its children in the nodes slice (-1 for none) and the
// offsets of the arguments given for its parameters (-1 when not written).
type pnode struct {
	off  int
	name string
	b    int // index into builtins, or -1
	kids [2]int
	args [3]int
}

// built is a schedule built from source: its node in builder.nodes (-1
// when not recording) and its depth, counting nodes.
type built struct {
	s     schedule.Schedule
	node  int
	depth int
}

// add records a node when recording and checks the depth of the new node,
// whose children are x and y (zero values for absent ones).
func (b *builder) add(s schedule.Schedule, off int, name string, bi int, args [3]int, x, y built) (built, error) {
	depth := max(x.depth, y.depth) + 1
	if depth > MaxDepth {
		return built{}, tooDeep(b.src, off)
	}
	idx := -1
	if b.record {
		kx, ky := -1, -1
		if x.s != nil {
			kx = x.node
		}
		if y.s != nil {
			ky = y.node
		}
		idx = len(b.nodes)
		b.nodes = append(b.nodes, pnode{off: off, name: name, b: bi, kids: [2]int{kx, ky}, args: args})
	}
	return built{s: s, node: idx, depth: depth}, nil
}

var noArgs = [3]int{-1, -1, -1}

// policy builds a policy: a chain of atoms and operators, then an optional
// upto.
func (b *builder) policy(p *astPolicy) (built, error) {
	x, err := b.seq(p, 0, len(p.Tail))
	if err != nil || p.UpTo.Type == 0 {
		return x, err
	}
	n := p.Budget
	if strings.HasSuffix(n.Value, "%") {
		return built{}, newError(b.src, n.Pos.Offset, n.Value, "upto wants a duration, got "+clip(n.Value), "")
	}
	d, err := b.duration(n)
	if err != nil {
		return built{}, err
	}
	return b.add(schedule.UpTo{Inner: x.s, Budget: d}, p.UpTo.Pos.Offset, "UpTo", -1, [3]int{-1, n.Pos.Offset, -1}, x, built{})
}

// The operands of a chain are numbered from 0 (Head); operator k stands
// between operands k and k+1. seq, union and inter each build the operands
// lo to hi, one level of precedence apiece, without recursion along the
// chain.

func (p *astPolicy) operand(k int) *astAtom {
	if k == 0 {
		return p.Head
	}
	return p.Tail[k-1].Rhs
}

func isThen(op lexer.Token) bool { return op.Value == ">>" || strings.EqualFold(op.Value, "then") }

// seq nests a then-chain to the right: a then b then c is
// AndThen(a, AndThen(b, c)).
func (b *builder) seq(p *astPolicy, lo, hi int) (built, error) {
	var (
		parts []built
		ops   []int // offsets of the then operators
		start = lo
	)
	for k := lo; k < hi; k++ {
		if isThen(p.Tail[k].Op) {
			x, err := b.union(p, start, k)
			if err != nil {
				return built{}, err
			}
			parts, ops, start = append(parts, x), append(ops, p.Tail[k].Op.Pos.Offset), k+1
		}
	}
	r, err := b.union(p, start, hi)
	for i := len(parts) - 1; i >= 0 && err == nil; i-- {
		l := parts[i]
		r, err = b.add(schedule.AndThen{First: l.s, Then: r.s}, ops[i], "AndThen", -1, noArgs, l, r)
	}
	return r, err
}

// union nests a |-chain to the left: a | b | c is Union(Union(a, b), c).
func (b *builder) union(p *astPolicy, lo, hi int) (built, error) {
	var (
		l     built
		start = lo
	)
	for k := lo; k <= hi; k++ {
		if k < hi && p.Tail[k].Op.Value != "|" {
			continue
		}
		r, err := b.inter(p, start, k)
		if err != nil {
			return built{}, err
		}
		if start == lo {
			l = r
		} else if l, err = b.add(schedule.Union{A: l.s, B: r.s}, p.Tail[start-1].Op.Pos.Offset, "Union", -1, noArgs, l, r); err != nil {
			return built{}, err
		}
		start = k + 1
	}
	return l, nil
}

// inter nests an &-chain to the left: a & b & c is
// Intersect(Intersect(a, b), c).
func (b *builder) inter(p *astPolicy, lo, hi int) (built, error) {
	var (
		l     built
		start = lo
	)
	for k := lo; k <= hi; k++ {
		if k < hi && p.Tail[k].Op.Value != "&" {
			continue
		}
		r, err := b.sum(p, start, k)
		if err != nil {
			return built{}, err
		}
		if start == lo {
			l = r
		} else if l, err = b.add(schedule.Intersect{A: l.s, B: r.s}, p.Tail[start-1].Op.Pos.Offset, "Intersect", -1, noArgs, l, r); err != nil {
			return built{}, err
		}
		start = k + 1
	}
	return l, nil
}

// sum nests a +-chain to the left: a + b + c is Sum(Sum(a, b), c). + binds
// tighter than &: a + b & c is Intersect(Sum(a, b), c).
func (b *builder) sum(p *astPolicy, lo, hi int) (built, error) {
	l, err := b.atom(p.operand(lo))
	for k := lo; k < hi && err == nil; k++ {
		var r built
		if r, err = b.atom(p.operand(k + 1)); err == nil {
			l, err = b.add(schedule.Sum{A: l.s, B: r.s}, p.Tail[k].Op.Pos.Offset, "Sum", -1, noArgs, l, r)
		}
	}
	return l, err
}

func (b *builder) atom(a *astAtom) (built, error) {
	if a.Group != nil {
		return b.policy(a.Group)
	}
	return b.call(a)
}

// call builds a constructor call: a variant or a helper.
func (b *builder) call(c *astAtom) (built, error) {
	name := c.Name.Value
	bi := lookup(name)
	if bi < 0 {
		msg := "unknown name " + quote(name)
		if s := suggest.Closest(name, names()); s != "" {
			msg += "; did you mean " + strconv.Quote(s) + "?"
		}
		return built{}, newError(b.src, c.Name.Pos.Offset, name, msg, "")
	}
	def := &builtins[bi]
	args, err := b.bind(c, def)
	if err != nil {
		return built{}, err
	}
	var offs [3]int
	for i := range offs {
		offs[i] = -1
		if args[i] != nil {
			offs[i] = args[i].valueOffset()
		}
	}
	// Arguments of each kind, in parameter order.
	var (
		kids  [2]built
		durs  [2]time.Duration
		ints  [2]int
		fracs [2]int  // of percentages: ten-thousandths of a percent
		left  [2]bool // an optional duration left out
	)
	nk, nd, ni := 0, 0, 0
	for i, p := range def.params {
		a := args[i]
		if a == nil { // an optional parameter left out: only durations are
			left[nd] = true
			nd++
			continue
		}
		switch p.kind {
		case kindPolicy:
			if a.Policy == nil {
				return built{}, b.wrongKind(def, p, a)
			}
			if kids[nk], err = b.policy(a.Policy); err != nil {
				return built{}, err
			}
			nk++
		case kindDur:
			if durs[nd], err = b.durationArg(a); err != nil {
				return built{}, b.orWrongKind(err, def, p, a)
			}
			nd++
		case kindInt, kindPct:
			if ints[ni], fracs[ni], err = b.integer(p, a); err != nil {
				return built{}, b.orWrongKind(err, def, p, a)
			}
			ni++
		}
	}
	off, name := c.Name.Pos.Offset, def.name
	switch bi {
	case bTimes:
		return b.add(schedule.Times{N: ints[0]}, off, name, bi, offs, built{}, built{})
	case bSpaced:
		return b.add(schedule.Spaced{Every: durs[0]}, off, name, bi, offs, built{}, built{})
	case bExponential:
		return b.add(schedule.Exponential{Base: durs[0], FactorPct: ints[0], FactorFrac: fracs[0], Cap: durs[1]}, off, name, bi, offs, built{}, built{})
	case bFibonacci:
		return b.add(schedule.Fibonacci{Base: durs[0]}, off, name, bi, offs, built{}, built{})
	case bJittered:
		return b.add(schedule.Jittered{Inner: kids[0].s, LowPct: ints[0], LowFrac: fracs[0], HighPct: ints[1], HighFrac: fracs[1]}, off, name, bi, offs, kids[0], built{})
	case bUnion:
		return b.add(schedule.Union{A: kids[0].s, B: kids[1].s}, off, name, bi, offs, kids[0], kids[1])
	case bIntersect:
		return b.add(schedule.Intersect{A: kids[0].s, B: kids[1].s}, off, name, bi, offs, kids[0], kids[1])
	case bAndThen:
		return b.add(schedule.AndThen{First: kids[0].s, Then: kids[1].s}, off, name, bi, offs, kids[0], kids[1])
	case bUpTo:
		return b.add(schedule.UpTo{Inner: kids[0].s, Budget: durs[0]}, off, name, bi, offs, kids[0], built{})
	case bForever:
		return b.add(schedule.Forever{}, off, name, bi, offs, built{}, built{})
	case bCapped:
		return b.add(schedule.Capped{Inner: kids[0].s, Max: durs[0]}, off, name, bi, offs, kids[0], built{})
	case bDecorrelated:
		return b.add(schedule.Decorrelated{Base: durs[0], Cap: durs[1]}, off, name, bi, offs, built{}, built{})
	case bLinear:
		if left[1] {
			durs[1] = durs[0] // linear(base) is base, 2·base, 3·base …
		}
		return b.add(schedule.Linear{Base: durs[0], Step: durs[1]}, off, name, bi, offs, built{}, built{})
	case bRandom:
		return b.add(schedule.Random{Lo: durs[0], Hi: durs[1]}, off, name, bi, offs, built{}, built{})
	case bSum:
		return b.add(schedule.Sum{A: kids[0].s, B: kids[1].s}, off, name, bi, offs, kids[0], kids[1])
	case bDecorrelatedV2:
		return b.add(schedule.DecorrelatedV2{Base: durs[0]}, off, name, bi, offs, built{}, built{})
	case bResetAfter:
		return b.add(schedule.ResetAfter{Inner: kids[0].s, After: durs[0]}, off, name, bi, offs, kids[0], built{})
	case bWhileBelow:
		return b.add(schedule.WhileBelow{Inner: kids[0].s, Limit: durs[0]}, off, name, bi, offs, kids[0], built{})
	}
	// backoff and fulljitter: Jittered(Exponential(base, 200%, cap), low, high).
	j := schedule.Backoff(durs[0], durs[1])
	if bi == bFullJitter {
		j = schedule.FullJitter(durs[0], durs[1])
	}
	inner, err := b.add(j.Inner, off, name, bi, offs, built{}, built{})
	if err != nil {
		return built{}, err
	}
	return b.add(j, off, name, bi, offs, inner, built{})
}
