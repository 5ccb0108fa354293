package parse

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// LocateYAML returns err, an error from decoding doc with
// go.yaml.in/yaml/v3, gopkg.in/yaml.v3 or gopkg.in/yaml.v2, with what the
// decoder could not tell a Policy filled in from doc: the key path (Key)
// of the value at fault and, in a literal block (|), the column in the
// file. For an error of gopkg.in/yaml.v3 or gopkg.in/yaml.v2, which tell
// only the line, it finds the value on that line and places the error as
// exactly as go.yaml.in/yaml/v3 would. sigs.k8s.io/yaml turns doc into
// JSON and decodes that with encoding/json, so its error for a Policy is
// a *json.UnmarshalTypeError with the key path but no place; LocateYAML
// finds the value as LocateJSON does in JSON, and returns a *ConfigError
// as for the other decoders. Any other error, or one whose value it
// cannot find, is returned as it is. For example,
//
//	yaml: line 5, column 7, at clients.billing.retry: unknown name "tmes"; did you mean "Times"?
//
// It reads doc again, as yaml.Node trees, without expanding aliases; a
// value reached through an alias is reported at its anchor. It costs one
// more pass over doc, on the error path only.
func LocateYAML(doc []byte, err error) error {
	var terr *json.UnmarshalTypeError
	if errors.As(err, &terr) && terr.Type == policyType {
		if e := locateJSONInYAML(doc, terr); e != nil {
			return e
		}
		return err
	}
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
		if cerr.col == 0 {
			// A value under a key or in a list first: the document's
			// own node, on line 1 too, is the policy only if nothing
			// inside it is.
			n, keys, ok := findYAMLLine(&root, cerr, nil, 0)
			if !ok && len(root.Content) == 1 && yamlFails(root.Content[0], cerr) {
				n, keys, ok = root.Content[0], nil, true
			}
			if ok {
				return indented(doc, placed(n, cerr.Err, keys))
			}
			continue
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

// findYAMLLine returns the first value node under n, in the order of the
// document and below depth 1 (the document's own node), on cerr's line
// that fails as a Policy as cerr says, with the keys to it.
func findYAMLLine(n *yaml.Node, cerr *ConfigError, keys []string, depth int) (*yaml.Node, []string, bool) {
	if depth > 1 && yamlFails(n, cerr) {
		return n, keys, true
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if m, k, ok := findYAMLLine(c, cerr, keys, depth+1); ok {
				return m, k, true
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if m, k, ok := findYAMLLine(n.Content[i+1], cerr, append(keys, n.Content[i].Value), depth+1); ok {
				return m, k, true
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if m, k, ok := findYAMLLine(c, cerr, append(keys, strconv.Itoa(i)), depth+1); ok {
				return m, k, true
			}
		}
	}
	return nil, nil, false
}

// yamlFails reports whether n starts on cerr's line and fails as a Policy
// as cerr says: a value of the same kind, or the same policy text.
func yamlFails(n *yaml.Node, cerr *ConfigError) bool {
	if n.Line != cerr.line0 || n.Kind == yaml.DocumentNode || n.Kind == yaml.AliasNode {
		return false
	}
	found, null := yamlFound(n)
	switch {
	case null:
		return false
	case cerr.Err == nil:
		return found != "" && foundKind(found) == foundKind(cerr.Found)
	}
	return found == "" && n.Value == cerr.text
}

// placed returns the error of node n placed as go.yaml.in/yaml/v3 would
// have reported it, with the key path: perr for a string that does not
// parse, or, if perr is nil, what n is instead of a string.
func placed(n *yaml.Node, perr *Error, keys []string) *ConfigError {
	var e *ConfigError
	if perr == nil {
		found, _ := yamlFound(n)
		e = &ConfigError{Line: n.Line, Column: n.Column, Exact: true, Found: found, format: "yaml", line0: n.Line, col: n.Column}
	} else {
		e = yamlError(n, perr)
	}
	e.Key = strings.Join(keys, ".")
	return e
}

// indented fills in the column of an error in a literal block, from doc.
func indented(doc []byte, e *ConfigError) *ConfigError {
	if e.Column == 0 && e.Err != nil {
		e.Column = blockIndent(doc, e.line0) + e.Err.Column
	}
	return e
}

// locateJSONInYAML places terr, the error of encoding/json for a Policy in
// the JSON that sigs.k8s.io/yaml made of doc, in doc: at the first value,
// in the order of the document, under a key equal to the field's name
// (without regard to case, as encoding/json matches names), or an
// element of a list there, whose error as a Policy in JSON is terr's;
// failing that, such a value under any key. It returns nil if there is
// none.
func locateJSONInYAML(doc []byte, terr *json.UnmarshalTypeError) *ConfigError {
	names := []string{terr.Field[strings.LastIndexByte(terr.Field, '.')+1:], ""}
	if terr.Field == "" {
		names = names[:1]
	}
	for _, name := range names {
		dec := yaml.NewDecoder(bytes.NewReader(doc))
		for {
			var root yaml.Node
			if dec.Decode(&root) != nil {
				break
			}
			if terr.Field == "" && len(root.Content) == 1 {
				if perr, ok := jsonFailsYAML(root.Content[0], terr.Value); ok {
					return indented(doc, placed(root.Content[0], perr, nil))
				}
				continue
			}
			if n, perr, keys, ok := findYAMLKey(&root, name, terr.Value, nil); ok {
				return indented(doc, placed(n, perr, keys))
			}
		}
	}
	return nil
}

// findYAMLKey returns the first node under n, with the keys to it, that is
// the value of a key equal to name (any key if name is ""), or an element
// of a list there, and fails in JSON as value describes, with its parse
// error if it is a string.
func findYAMLKey(n *yaml.Node, name, value string, keys []string) (*yaml.Node, *Error, []string, bool) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if m, perr, k, ok := findYAMLKey(c, name, value, keys); ok {
				return m, perr, k, true
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, val := n.Content[i].Value, n.Content[i+1]
			at := append(keys[:len(keys):len(keys)], key)
			if name == "" || strings.EqualFold(key, name) {
				if perr, ok := jsonFailsYAML(val, value); ok {
					return val, perr, at, true
				}
				if val.Kind == yaml.SequenceNode {
					for j, c := range val.Content {
						if perr, ok := jsonFailsYAML(c, value); ok {
							return c, perr, append(at, strconv.Itoa(j)), true
						}
					}
				}
			}
			if m, perr, k, ok := findYAMLKey(val, name, value, at); ok {
				return m, perr, k, true
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if m, perr, k, ok := findYAMLKey(c, name, value, append(keys[:len(keys):len(keys)], strconv.Itoa(i))); ok {
				return m, perr, k, true
			}
		}
	}
	return nil, nil, nil, false
}

// jsonFailsYAML reports whether node n, as sigs.k8s.io/yaml turns it into
// JSON, fails as a Policy with the error value describes, and returns the
// parse error if n is a string.
func jsonFailsYAML(n *yaml.Node, value string) (*Error, bool) {
	found, null := yamlFound(n)
	switch {
	case null, n.Kind == yaml.AliasNode: // found at its anchor
		return nil, false
	case found == "":
		lit, err := json.Marshal(n.Value) // HTML-escaped, as sigs.k8s.io/yaml writes it
		if err != nil {
			return nil, false
		}
		_, bad := decodeJSON(lit)
		return bad.err, bad.value != "" && bad.value == value
	}
	var kind string
	switch n.Kind {
	case yaml.MappingNode:
		kind = "an object"
	case yaml.SequenceNode:
		kind = "an array"
	default:
		switch n.ShortTag() {
		case "!!int", "!!float":
			kind = "the number "
		case "!!bool":
			kind = "the boolean "
		default:
			return nil, false
		}
	}
	return nil, strings.HasPrefix(value, kind)
}
