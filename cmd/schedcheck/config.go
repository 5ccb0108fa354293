package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/recur-go/recur/cmd/schedcheck/internal/yamlguard"
	"go.yaml.in/yaml/v3"
)

// maxDepth is the deepest nesting of lists, mappings and tables that check
// --key reads in a JSON or TOML file, checked by a scan of the bytes before
// the file is decoded. (YAML's decoder stops at 10,000 levels itself.)
const maxDepth = 100

// configResult is what check --key finds in one config file: the strings
// at the key path, and an error for each other value there.
type configResult struct {
	srcs []source
	bad  []error
	// misfitAt says, for each of srcs and bad in the order the walk of
	// the file found them, whether it is the next of bad.
	misfitAt []bool
}

// addSource records a policy found at the key path.
func (r *configResult) addSource(src source) {
	r.srcs = append(r.srcs, src)
	r.misfitAt = append(r.misfitAt, false)
}

// addMisfit records a value at the key path that is not a string.
func (r *configResult) addMisfit(m misfit) {
	r.bad = append(r.bad, m)
	r.misfitAt = append(r.misfitAt, true)
}

// misfit is a value at the key path that is not a string.
type misfit struct {
	name      string
	line, col int
	key, what string
}

func (m misfit) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s", m.name, m.line, m.col, m.key, m.msg())
}

func (m misfit) msg() string {
	return "found " + m.what + " where a policy belongs; a policy is a string, such as \"backoff(100ms, 30s) & times(5)\""
}

// configPolicies returns every string at the dotted key path in a JSON,
// YAML or TOML config file, and an error for each value there that is not
// a string. A path segment "*" matches every key of a mapping; a sequence
// on the way applies the rest of the path to each of its elements, and a
// sequence at the end yields each element.
func configPolicies(name string, data []byte, key string) (configResult, error) {
	path := strings.Split(key, ".")
	ext := strings.ToLower(filepath.Ext(name))
	if ext == ".json" || ext == ".toml" {
		if err := checkDepth(data, ext == ".toml"); err != nil {
			return configResult{}, fmt.Errorf("%s:%v", name, err)
		}
	}
	if ext == ".toml" {
		return tomlPolicies(name, data, path)
	}
	// YAML, and JSON, which YAML reads too.
	root, err := yamlguard.Decode(data)
	if err != nil {
		return configResult{}, fmt.Errorf("%s: %s", name, redact(err.Error()))
	}
	w := yamlWalker{name: name, file: newFileText(data)}
	if root != nil {
		w.walk(root, path)
	}
	return w.res, nil
}

// quoted matches what a decoder's error quotes from the file: text in
// quotes or backquotes, and the name of an alias or anchor.
var quoted = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("'[^'\n]*'|\"[^\"\n]*\"|`[^`\n]*`|[*&][^\\s,\\[\\]{}]+")
})

// maxErrorLen is the most bytes of a decoder's message check prints.
const maxErrorLen = 200

// redact returns a YAML or TOML decoder's error message without what it
// quotes from the file, so that an error about a config file (which may
// hold passwords beside the policies) shows where and what is wrong, not
// the file's text: each quoted part becomes "…" (but for a quoted
// punctuation mark, which is what the decoder expected), and a message
// longer than maxErrorLen is cut.
func redact(msg string) string {
	msg = quoted().ReplaceAllStringFunc(msg, func(q string) string {
		if len(q) == 3 && q[0] != '*' && q[0] != '&' && strings.ContainsRune(",:[]{}-?#", rune(q[1])) {
			return q // the decoder's own punctuation: "expected ',' or ']'"
		}
		return "…"
	})
	if len(msg) > maxErrorLen {
		cut := maxErrorLen
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	return msg
}

// keyPath is a key path built as the walk goes down, joined only for a
// value that is reported: joining at every level would cost time and
// memory quadratic in the depth.
type keyPath []string

func (p keyPath) String() string {
	var b strings.Builder
	for _, s := range p {
		if isIndex(s) {
			s = s[1:]
		} else if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

// index returns the key path segment of a list's i-th element. It starts
// with a NUL byte, to tell it from a key that looks like an index.
func index(i int) string { return "\x00[" + strconv.Itoa(i) + "]" }

func isIndex(s string) bool { return strings.HasPrefix(s, "\x00") }

type yamlWalker struct {
	name string
	file *fileText
	at   keyPath
	res  configResult
}

func (w *yamlWalker) walk(n *yaml.Node, path []string) {
	for n.Kind == yaml.AliasNode { // yamlguard.Decode has ruled out cycles
		n = n.Alias
	}
	switch {
	case n.Kind == yaml.SequenceNode:
		for i, e := range n.Content {
			w.at = append(w.at, index(i))
			w.walk(e, path)
			w.at = w.at[:len(w.at)-1]
		}
	case len(path) == 0:
		if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
			line := n.Line
			if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
				line++ // a block scalar starts on the line after its indicator
			}
			w.res.addSource(source{name: w.name, key: w.at.String(), text: n.Value, line: line, file: w.file})
			return
		}
		w.res.addMisfit(misfit{w.name, n.Line, n.Column, w.at.String(), yamlKind(n)})
	case n.Kind == yaml.MappingNode:
		for _, kv := range mergedPairs(n) {
			if k := kv[0].Value; path[0] == "*" || k == path[0] {
				w.at = append(w.at, k)
				w.walk(kv[1], path[1:])
				w.at = w.at[:len(w.at)-1]
			}
		}
	}
}

// mergedPairs returns the key and value nodes of the mapping n with its
// merge keys (<<: *anchor, or <<: [*a, *b]) applied, as YAML 1.1 defines
// them and yaml.v3 decodes them: the mapping's own keys first, in order,
// then each merged mapping's keys that no key before has, in order, a
// mapping earlier in a merge list before a later one. A merged mapping's
// own merge keys are applied first. A merge key whose value is not a
// mapping or a list of mappings merges nothing here (yaml.v3 refuses it
// when decoding into a Go value). yamlguard.Decode has ruled out cycles
// and bounded what aliases stand for, so this ends.
func mergedPairs(n *yaml.Node) [][2]*yaml.Node {
	var own, merges [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			merges = append(merges, [2]*yaml.Node{k, v})
			continue
		}
		own = append(own, [2]*yaml.Node{k, v})
	}
	if len(merges) == 0 {
		return own
	}
	seen := make(map[string]bool, len(own))
	for _, kv := range own {
		seen[kv[0].Value] = true
	}
	out := own
	add := func(m *yaml.Node) {
		for m.Kind == yaml.AliasNode {
			m = m.Alias
		}
		if m.Kind != yaml.MappingNode {
			return
		}
		for _, kv := range mergedPairs(m) {
			if !seen[kv[0].Value] {
				seen[kv[0].Value] = true
				out = append(out, kv)
			}
		}
	}
	for _, kv := range merges {
		v := kv[1]
		for v.Kind == yaml.AliasNode {
			v = v.Alias
		}
		if v.Kind == yaml.SequenceNode {
			for _, e := range v.Content {
				add(e)
			}
			continue
		}
		add(v)
	}
	return out
}

// yamlKind says what a YAML node that is not a string is.
func yamlKind(n *yaml.Node) string {
	switch {
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Tag == "!!int" || n.Tag == "!!float":
		return "a number (" + excerpt(n.Value) + ")"
	case n.Tag == "!!bool":
		return "a boolean (" + excerpt(n.Value) + ")"
	case n.Tag == "!!null":
		return "no value (null)"
	default:
		return "a value of type " + strings.TrimPrefix(n.Tag, "!!") + " (" + excerpt(n.Value) + ")"
	}
}

// excerpt returns s, or its start when it is long.
func excerpt(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

// checkDepth scans a JSON or TOML file's bytes, skipping strings (and, in
// TOML, comments), and reports the first place where brackets and braces
// nest deeper than maxDepth, or a TOML dotted key has more than maxDepth
// dots, as LINE:COL: message.
func checkDepth(data []byte, toml bool) error {
	depth, dots, line, lineStart := 0, 0, 1, 0
	for i := 0; i < len(data); i++ {
		c := data[i]
		if strings.IndexByte("=,[]{}\n", c) >= 0 {
			dots = 0 // a dotted TOML key ends
		}
		switch {
		case c == '\n':
			line, lineStart = line+1, i+1
		case c == '[' || c == '{':
			if depth++; depth > maxDepth {
				return fmt.Errorf("%d:%d: lists and tables nested more than %d deep", line, i-lineStart+1, maxDepth)
			}
		case c == ']' || c == '}':
			depth--
		case c == '.' && toml:
			if dots++; dots > maxDepth {
				return fmt.Errorf("%d:%d: a dotted key more than %d keys long", line, i-lineStart+1, maxDepth)
			}
		case c == '#' && toml:
			for i+1 < len(data) && data[i+1] != '\n' {
				i++
			}
		case c == '"' || (c == '\'' && toml):
			// Skip the string: "…", '…', """…""" or '''…''' (the last
			// two may span lines). Only double quotes have escapes.
			quote := data[i : i+1]
			if toml && i+2 < len(data) && data[i+1] == c && data[i+2] == c {
				quote = data[i : i+3]
			}
			j := i + len(quote)
			for j < len(data) && !(data[j] == c && hasPrefix(data[j:], quote)) {
				if data[j] == '\\' && c == '"' && j+1 < len(data) {
					j++
				}
				if data[j] == '\n' {
					line, lineStart = line+1, j+1
				}
				j++
			}
			i = j + len(quote) - 1
		}
	}
	return nil
}

func hasPrefix(b, prefix []byte) bool {
	return len(b) >= len(prefix) && string(b[:len(prefix)]) == string(prefix)
}
