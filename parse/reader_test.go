package parse

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/participle/v2/lexer"
	"pgregory.net/rapid"
)

// checkSlabs reads src and, when it parses, checks that newReader sized
// every slab exactly: each is full and none was replaced.
func checkSlabs(t interface{ Fatalf(string, ...any) }, src string) {
	l, err := lexer.Upgrade(&lexState{src: src})
	if err != nil {
		return
	}
	r := newReader(l)
	caps := [...]int{cap(r.atoms), cap(r.policies), cap(r.ops), cap(r.tails), cap(r.args)}
	if r.policy(new(astPolicy)) != nil || !l.Peek().EOF() {
		return
	}
	got := [...]int{len(r.atoms), len(r.policies), len(r.ops), len(r.tails), len(r.args)}
	now := [...]int{cap(r.atoms), cap(r.policies), cap(r.ops), cap(r.tails), cap(r.args)}
	if got != caps || now != caps {
		t.Fatalf("%q: atoms, policies, ops, tails, args: counted %v, read %v (slabs now %v)", src, caps, got, now)
	}
}

func TestReaderSlabs(t *testing.T) {
	for _, src := range fuzzCorpus(t, filepath.Join("testdata", "fuzz", "FuzzParse")) {
		checkSlabs(t, src)
	}
	rapid.Check(t, func(t *rapid.T) {
		checkSlabs(t, strings.Join(genPolicy(t, 3), " "))
	})
}

// TestBuiltinsParams: no name takes more than maxParams parameters, which
// the builder's and the reader's arrays hold.
func TestBuiltinsParams(t *testing.T) {
	for _, b := range builtins {
		if len(b.params) > maxParams {
			t.Errorf("%s takes %d parameters; maxParams is %d", b.name, len(b.params), maxParams)
		}
	}
}
