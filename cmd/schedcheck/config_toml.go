package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pelletier/go-toml/v2/unstable"
)

// tomlPolicies is configPolicies for TOML. The file is read as go-toml's
// stream of expressions, which carry their byte offsets: each value at the
// key path is found with its line and column, where a decoded map has
// none. go-toml's decoder is not used: its check for duplicate keys is
// quadratic in the number of keys of a table (90,000 keys take a minute),
// and BurntSushi's decoder is quadratic in nested inline tables. A key
// defined twice, at the top of a table or as a table header, is reported
// here, by a map.
func tomlPolicies(name string, data []byte, path []string) (configResult, error) {
	w := tomlWalker{name: name, file: newFileText(data), root: &tomlTable{}, seen: map[string]bool{}}
	var p unstable.Parser
	p.Reset(data)
	for p.NextExpression() {
		e := p.Expression()
		var err error
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			err = w.header(e, path)
		case unstable.KeyValue:
			w.at = append(w.at[:0], w.table...)
			err = w.keyValue(e, path, true)
		}
		if err != nil {
			return configResult{}, err
		}
	}
	if err := p.Error(); err != nil {
		var pe *unstable.ParserError
		if errors.As(err, &pe) && len(pe.Highlight) > 0 {
			line, col := w.position(p.Range(pe.Highlight).Offset)
			return configResult{}, fmt.Errorf("%s:%d:%d: %s", name, line, col, redact(err.Error()))
		}
		return configResult{}, fmt.Errorf("%s: %s", name, redact(err.Error()))
	}
	return w.res, nil
}

// tomlTable is a table defined by a header, to resolve [[array]] tables:
// a header a.b names the last element of a when a is an array of tables.
type tomlTable struct {
	kids  map[string]*tomlTable
	elems []*tomlTable // for an array of tables
}

func (t *tomlTable) kid(k string) *tomlTable {
	if t.kids == nil {
		t.kids = map[string]*tomlTable{}
	}
	if t.kids[k] == nil {
		t.kids[k] = &tomlTable{}
	}
	return t.kids[k]
}

type tomlWalker struct {
	name  string
	file  *fileText
	root  *tomlTable
	seen  map[string]bool // the key paths defined so far, to find duplicates
	table keyPath         // the current table's key path, with array indices
	at    keyPath         // the key path of the value being walked
	res   configResult
}

// header starts a [table] or [[array of tables]] and reports it when the
// table itself is at the key path.
func (w *tomlWalker) header(e *unstable.Node, path []string) error {
	w.table = w.table[:0]
	t := w.root
	it := e.Key()
	var last *unstable.Node
	for it.Next() {
		last = it.Node()
		k := string(last.Data)
		if len(t.elems) > 0 {
			w.table = append(w.table, index(len(t.elems)-1))
			t = t.elems[len(t.elems)-1]
		}
		w.table = append(w.table, k)
		t = t.kid(k)
	}
	if e.Kind == unstable.ArrayTable {
		t.elems = append(t.elems, &tomlTable{})
		w.table = append(w.table, index(len(t.elems)-1))
	}
	if e.Kind == unstable.Table {
		if err := w.define(last, w.table); err != nil {
			return err
		}
	}
	if n, ok := matched(w.table, path); ok && n == len(path) {
		w.at = append(w.at[:0], w.table...)
		w.misfit(last, "a table")
	}
	return nil
}

// define records that the key path at is defined by the key node k, and
// reports a second definition.
func (w *tomlWalker) define(k *unstable.Node, at keyPath) error {
	s := strings.Join(at, "\x01")
	if w.seen[s] {
		line, col := w.position(k.Raw.Offset)
		// The key is not named: it may be anywhere in the file, not on
		// the key path, and its name is the file's text.
		return fmt.Errorf("%s:%d:%d: a key or table defined twice", w.name, line, col)
	}
	w.seen[s] = true
	return nil
}

// keyValue walks the value of a key = value line inside the table at
// w.at; top is true for a line at the top of a table, whose key is
// recorded to find duplicates.
func (w *tomlWalker) keyValue(e *unstable.Node, path []string, top bool) error {
	depth := len(w.at)
	defer func() { w.at = w.at[:depth] }()
	it := e.Key()
	var last *unstable.Node
	for it.Next() {
		last = it.Node()
		w.at = append(w.at, string(last.Data))
	}
	if top {
		if err := w.define(last, w.at); err != nil {
			return err
		}
	}
	if n, ok := matched(w.at, path); ok {
		w.value(e.Value(), path[n:])
	}
	return nil
}

// value walks v, found at key path w.at, with the rest of the key path to
// follow.
func (w *tomlWalker) value(v *unstable.Node, path []string) {
	switch v.Kind {
	case unstable.Array:
		it := v.Children()
		for i := 0; it.Next(); i++ {
			w.at = append(w.at, index(i))
			w.value(it.Node(), path)
			w.at = w.at[:len(w.at)-1]
		}
	case unstable.InlineTable:
		if len(path) == 0 {
			w.misfit(v, "a table")
			return
		}
		it := v.Children()
		for it.Next() {
			if kv := it.Node(); kv.Kind == unstable.KeyValue {
				w.keyValue(kv, path, false)
			}
		}
	case unstable.String:
		if len(path) == 0 {
			line, _ := w.position(v.Raw.Offset)
			if raw := w.file.data[v.Raw.Offset:]; strings.HasPrefix(raw, `"""`+"\n") || strings.HasPrefix(raw, "'''\n") {
				line++ // the newline after the opening quotes is not part of the string
			}
			w.res.addSource(source{name: w.name, key: w.at.String(), text: string(v.Data), line: line, file: w.file})
		}
	default:
		if len(path) == 0 {
			what := "a " + strings.ToLower(v.Kind.String())
			switch v.Kind {
			case unstable.Integer, unstable.Float:
				what = "a number"
			case unstable.Bool:
				what = "a boolean"
			}
			w.misfit(v, what+" ("+excerpt(string(v.Data))+")")
		}
	}
}

func (w *tomlWalker) misfit(n *unstable.Node, what string) {
	line, col := w.position(n.Raw.Offset)
	w.res.addMisfit(misfit{w.name, line, col, w.at.String(), what})
}

// position returns the line and column of a byte offset.
func (w *tomlWalker) position(offset uint32) (line, col int) {
	off := int(offset)
	line, _ = slices.BinarySearch(w.file.starts, off+1) // lines starting at or before off
	return line, utf8.RuneCountInString(w.file.data[w.file.starts[line-1]:off]) + 1
}

// matched matches the keys of at (not its indices) against the start of
// the key path. It returns how many path segments they use, and false if
// a key does not match or at is longer than the path.
func matched(at keyPath, path []string) (int, bool) {
	n := 0
	for _, k := range at {
		if isIndex(k) {
			continue
		}
		if n == len(path) || (path[n] != "*" && path[n] != k) {
			return 0, false
		}
		n++
	}
	return n, true
}
