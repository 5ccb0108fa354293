// Package yamlguard decodes YAML into a node tree of bounded size whose
// aliases are safe to follow: a document that may hold more than MaxNodes
// nodes is refused before it is decoded; an alias inside the node it
// refers to (x: &a [*a]) is an error, and so is a document whose aliases
// expand, all told, to more than MaxNodes nodes (the "billion laughs"
// attack, where a few hundred bytes of nested aliases stand for billions
// of nodes).
//
// The decoder itself never expands an alias: yaml.Node keeps it as a
// pointer. It is the code that walks the tree afterwards, following each
// alias, that would loop or run out of memory; after Decode it cannot.
//
// Its user is audit, which reads audit plans with it. It imports nothing
// of the module. It exists twice: here, and as a copy in
// cmd/schedcheck/internal/yamlguard for the schedcheck module, which
// cannot import another module's internal packages; the two are the same
// but for import paths, and internal/layout's test keeps them so.
package yamlguard

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// MaxNodes bounds a document's size in nodes (values, keys, lists and
// mappings) twice over. Before decoding, the bytes that can start a node
// are counted — commas, colons, dashes, question marks, opening brackets
// and braces, line breaks — and a document with more than MaxNodes of
// them is refused: each node costs the decoder a few hundred bytes, so
// this bounds its memory near 50 MB. After decoding, the aliases may
// stand for at most MaxNodes nodes in all, each alias counting as the
// size of what it refers to, aliases within included, and a string one
// node per KiB of its text (so that an alias cannot repeat a long string
// MaxNodes times).
const MaxNodes = 100_000

// Decode parses data as YAML (or JSON, which YAML reads) and returns the
// document's root node, or nil for an empty document. It returns an error
// for a document that may have more than MaxNodes nodes, invalid YAML, an
// alias cycle, or aliases that expand past MaxNodes. (The YAML decoder
// refuses nesting deeper than 10,000 levels.)
func Decode(data []byte) (*yaml.Node, error) {
	if n := countStarts(data); n > MaxNodes {
		return nil, fmt.Errorf("the document may have %d values, more than the limit of %d (counting commas, colons, dashes, brackets, braces and line breaks)", n, MaxNodes)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	root := doc.Content[0]
	if err := Check(root); err != nil {
		return nil, err
	}
	return root, nil
}

// Check reports an alias that refers to a node containing it, or aliases
// that together expand to more than MaxNodes nodes. Its cost is
// linear in the number of nodes in the tree, whatever the aliases.
func Check(root *yaml.Node) error {
	c := checker{size: map[*yaml.Node]int{}, open: map[*yaml.Node]bool{}}
	_, err := c.walk(root)
	return err
}

type checker struct {
	size     map[*yaml.Node]int  // expanded size of each finished node
	open     map[*yaml.Node]bool // nodes being walked: an alias to one is a cycle
	expanded int                 // nodes the aliases seen so far stand for
}

// walk returns the number of nodes n stands for once every alias in it is
// expanded, saturated at MaxNodes+1.
func (c *checker) walk(n *yaml.Node) (int, error) {
	if n == nil {
		return 0, nil
	}
	if s, ok := c.size[n]; ok {
		return s, nil
	}
	if c.open[n] {
		return 0, fmt.Errorf("line %d: an alias refers to a node that contains it", n.Line)
	}
	c.open[n] = true
	defer delete(c.open, n)
	total := 1 + len(n.Value)>>10 // a long string weighs one node per KiB
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return 0, fmt.Errorf("line %d: alias *%s refers to nothing", n.Line, n.Value)
		}
		if c.open[n.Alias] {
			return 0, fmt.Errorf("line %d: alias *%s refers to a node that contains it", n.Line, n.Value)
		}
		s, err := c.walk(n.Alias)
		if err != nil {
			return 0, err
		}
		c.expanded += s
		if c.expanded > MaxNodes {
			return 0, fmt.Errorf("line %d: aliases expand to more than %d nodes", n.Line, MaxNodes)
		}
		total = s
	} else {
		for _, e := range n.Content {
			s, err := c.walk(e)
			if err != nil {
				return 0, err
			}
			total = min(total+s, MaxNodes+1)
		}
	}
	c.size[n] = total
	return total, nil
}

// countStarts counts the bytes of data that can start a YAML node, an upper
// bound on the number of nodes (strings and comments are not skipped, so
// it may count more, never fewer). It stops counting past MaxNodes.
func countStarts(data []byte) int {
	n := 1
	for _, c := range data {
		switch c {
		case ',', ':', '-', '?', '[', '{', '\n':
			if n++; n > MaxNodes {
				return n
			}
		}
	}
	return n
}
