package parse

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// LocateYAML returns err, an error from decoding doc with
// go.yaml.in/yaml/v3, with what the decoder could not tell a Policy filled
// in from doc: the key path (Key) of the value at fault and, in a literal
// block (|), the column in the file. Any other error, or one whose value it
// cannot find, is returned as it is. For example,
//
//	yaml: line 5, column 7, at clients.billing.retry: unknown name "tmes"; did you mean "Times"?
//
// It reads doc again, as yaml.Node trees, without expanding aliases; a
// value reached through an alias is reported at its anchor. It costs one
// more pass over doc, on the error path only.
func LocateYAML(doc []byte, err error) error {
	var cerr *ConfigError
	if !errors.As(err, &cerr) || cerr.format != "yaml" || cerr.line0 == 0 {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(doc))
	for {
		var root yaml.Node
		if dec.Decode(&root) != nil {
			return err
		}
		if keys, ok := findYAML(&root, cerr.line0, cerr.col, nil); ok {
			located := *cerr
			located.Key = strings.Join(keys, ".")
			if located.Column == 0 && located.Err != nil {
				located.Column = blockIndent(doc, cerr.line0) + located.Err.Column
			}
			return &located
		}
	}
}

// findYAML returns the keys from n to the node that starts at line:col.
func findYAML(n *yaml.Node, line, col int, keys []string) ([]string, bool) {
	if n.Line == line && n.Column == col && n.Kind != yaml.DocumentNode && n.Kind != yaml.AliasNode {
		return keys, true
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if k, ok := findYAML(c, line, col, keys); ok {
				return k, true
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k, ok := findYAML(n.Content[i+1], line, col, append(keys, n.Content[i].Value)); ok {
				return k, true
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if k, ok := findYAML(c, line, col, append(keys, strconv.Itoa(i))); ok {
				return k, true
			}
		}
	}
	return nil, false
}

// blockIndent returns the indentation, in spaces, of the text of the
// literal block whose header is on line header (from 1) of doc: that of its
// first line that is not blank, as YAML decides it.
func blockIndent(doc []byte, header int) int {
	lines := bytes.Split(doc, []byte("\n"))
	for _, l := range lines[min(header, len(lines)):] {
		text := bytes.TrimLeft(l, " ")
		if len(bytes.TrimSpace(text)) > 0 {
			return len(l) - len(text)
		}
	}
	return 0
}
