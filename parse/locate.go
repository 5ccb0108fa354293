package parse

import (
	"strings"

	"github.com/recur-go/recur/schedule"
)

// locate returns the source of the node reached from the root by fields,
// as recorded by a builder with record set.
func (b *builder) locate(root int, fields []string) pnode {
	n := b.nodes[root]
	for _, f := range fields {
		k := n.kids[0]
		if f == "B" || f == "Then" {
			k = n.kids[1]
		}
		if k < 0 {
			break
		}
		n = b.nodes[k]
	}
	return n
}

// invalid turns a validation error into an Error at the node's place in the
// source: at the argument the message is about, when there is one.
func (b *builder) invalid(root int, verr *schedule.Error) *Error {
	n := b.locate(root, verr.Fields)
	off := n.off
	if n.b >= 0 {
		// Validate's messages start with the parameter's name: "factor
		// 50% is below 100%". Point at that argument if it was written.
		word, _, _ := strings.Cut(verr.Msg, " ")
		if i := builtins[n.b].paramIndex(word); i >= 0 && n.args[i] >= 0 {
			off = n.args[i]
		}
	} else if n.args[1] >= 0 && strings.HasPrefix(verr.Msg, "budget ") {
		off = n.args[1] // infix upto
	}
	e := newError(b.src, off, tokenAt(b.src, off), n.name+": "+verr.Msg, "")
	e.Err = verr
	return e
}
