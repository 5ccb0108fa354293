// Package yamlguard decodes YAML into a node tree whose aliases are safe to
// follow: an alias inside the node it refers to (x: &a [*a]) is an error,
// and so is a document whose aliases expand, all told, to more than
// MaxAliasNodes nodes (the "billion laughs" attack, where a few hundred
// bytes of nested aliases stand for billions of nodes).
//
// The decoder itself never expands an alias: yaml.Node keeps it as a
// pointer. It is the code that walks the tree afterwards, following each
// alias, that would loop or run out of memory; after Decode it cannot.
package yamlguard

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// MaxAliasNodes is the most nodes the aliases of one document may stand
// for, counting each alias as the size of what it refers to, aliases
// within included. Sharing a block of settings between a few hundred
// entries stays far below it.
const MaxAliasNodes = 100_000

// Decode parses data as YAML (or JSON, which YAML reads) and returns the
// document's root node, or nil for an empty document. It returns an error
// for invalid YAML, an alias cycle, or aliases that expand past
// MaxAliasNodes. (The YAML decoder refuses nesting deeper than 10,000
// levels.)
func Decode(data []byte) (*yaml.Node, error) {
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
// that together expand to more than MaxAliasNodes nodes. Its cost is
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
// expanded, saturated at MaxAliasNodes+1.
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
	total := 1
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
		if c.expanded > MaxAliasNodes {
			return 0, fmt.Errorf("line %d: aliases expand to more than %d nodes", n.Line, MaxAliasNodes)
		}
		total = s
	} else {
		for _, e := range n.Content {
			s, err := c.walk(e)
			if err != nil {
				return 0, err
			}
			total = min(total+s, MaxAliasNodes+1)
		}
	}
	c.size[n] = total
	return total, nil
}
