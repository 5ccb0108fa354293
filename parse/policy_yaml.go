package parse

import (
	"errors"
	"strings"

	"go.yaml.in/yaml/v3"
)

var _ yaml.Unmarshaler = (*Policy)(nil)

// UnmarshalYAML reads a policy from a YAML string, for go.yaml.in/yaml/v3.
// A string that does not parse, and any value that is not a string (a
// mapping, a list, a number, a boolean), is a *ConfigError with the line
// and column in the file. As with UnmarshalText, the empty string sets the
// zero Policy; the decoder does not call UnmarshalYAML for null (retry:,
// retry: ~), which leaves p as it was. On error, p is unchanged.
func (p *Policy) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	found, null := yamlFound(n)
	if null {
		return nil
	}
	if found != "" {
		return &ConfigError{Line: n.Line, Column: n.Column, Exact: true, Found: found, format: "yaml", line0: n.Line, col: n.Column}
	}
	var perr *Error
	if err := p.UnmarshalText([]byte(n.Value)); !errors.As(err, &perr) {
		return err // nil: UnmarshalText returns only *Error
	}
	return yamlError(n, perr)
}

// yamlFound says what n is when it is not a string, or "" when it is one;
// null reports a null scalar.
func yamlFound(n *yaml.Node) (found string, null bool) {
	switch n.Kind {
	case yaml.ScalarNode:
	case yaml.MappingNode:
		return "a mapping", false
	case yaml.SequenceNode:
		return "a list", false
	default:
		return "a value that is not a string", false
	}
	switch n.ShortTag() {
	case "!!null":
		return "", true
	case "!!int", "!!float":
		return "the number " + clip(n.Value), false
	case "!!bool":
		return "the boolean " + clip(n.Value), false
	case "!!timestamp":
		return "the timestamp " + clip(n.Value), false
	case "!!binary":
		return "binary data", false
	}
	return "", false
}

// yamlError places the parse error perr of scalar n in the file. A plain
// or quoted scalar on one line maps character for character, after the
// opening quote; a literal block (|) line for line, but the decoder does
// not say how deep its text is indented, so only the line is known; a
// folded block (>) and a string with line breaks in its value do not map,
// so the error points at the start of the value. The node keeps only the
// decoded text, so two things cannot be seen and are counted as if they
// were not there: escapes in a double-quoted string (\t, \u0026), and a
// plain or quoted string folded over several lines of the file.
func yamlError(n *yaml.Node, perr *Error) *ConfigError {
	e := &ConfigError{Line: n.Line, Column: n.Column, Err: perr, format: "yaml", line0: n.Line, col: n.Column}
	col := perr.Column
	if perr.Line == 1 && strings.HasPrefix(n.Value, bom) { // Parse skipped it
		col++
	}
	switch n.Style &^ (yaml.TaggedStyle | yaml.FlowStyle) {
	case yaml.LiteralStyle:
		e.Line, e.Column, e.Exact = n.Line+perr.Line, 0, true
	case yaml.FoldedStyle:
	case yaml.SingleQuotedStyle, yaml.DoubleQuotedStyle:
		if perr.Line == 1 {
			e.Column, e.Exact = n.Column+col, true // after the opening quote
		}
	default: // plain
		if perr.Line == 1 {
			e.Column, e.Exact = n.Column+col-1, true
		}
	}
	return e
}
