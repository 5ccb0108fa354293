package parse

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

// UnmarshalYAML reads a policy from a YAML string. It takes the decoder's
// unmarshal function, the form of the method that go.yaml.in/yaml/v3,
// gopkg.in/yaml.v3 and gopkg.in/yaml.v2 all call, so that Policy needs
// none of their types to be read by each of them.
//
// A string that does not parse, and any value that is not a string (a
// mapping, a list, a number, a boolean), is a *ConfigError that says where
// the value is in the file. go.yaml.in/yaml/v3 hands over its yaml.Node,
// so the error has the line and column of the offending spot. The other
// decoders tell only the line the value starts on (their type errors
// carry it), so the error has that line, Column 0 and Exact false;
// LocateYAML then finds the column and the key.
//
// As with UnmarshalText, the empty string sets the zero Policy; the
// decoders do not call UnmarshalYAML for null (retry:, retry: ~), which
// leaves p as it was. On error, p is unchanged.
func (p *Policy) UnmarshalYAML(unmarshal func(any) error) error {
	var probe nodeProbe
	if err := unmarshal(&probe); err == nil && probe.n != nil {
		return p.unmarshalNode(probe.n)
	}
	return p.unmarshalValue(unmarshal)
}

// nodeProbe catches the yaml.Node of go.yaml.in/yaml/v3, which calls its
// UnmarshalYAML; other decoders see a struct with no fields to set.
type nodeProbe struct{ n *yaml.Node }

// UnmarshalYAML keeps n.
func (p *nodeProbe) UnmarshalYAML(n *yaml.Node) error {
	p.n = n
	return nil
}

// unmarshalNode reads p from n, a node of go.yaml.in/yaml/v3 (the decoder
// has followed an alias to its anchor already).
func (p *Policy) unmarshalNode(n *yaml.Node) error {
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

// unmarshalValue reads p through a decoder other than go.yaml.in/yaml/v3:
// as a plain Go value, with the line the value starts on, from the
// decoder's type error for a value decoded into a type that nothing fits.
func (p *Policy) unmarshalValue(unmarshal func(any) error) error {
	var v any
	if err := unmarshal(&v); err != nil {
		return err
	}
	if v == nil {
		return nil
	}
	line := 0
	if m := typeErrorLine().FindStringSubmatch(errText(unmarshal(new(lineProbe)))); m != nil {
		line, _ = strconv.Atoi(m[1])
	}
	s, ok := v.(string)
	if !ok {
		return &ConfigError{Line: line, Found: valueFound(v), format: "yaml", line0: line}
	}
	var perr *Error
	if err := p.UnmarshalText([]byte(s)); !errors.As(err, &perr) {
		return err // nil: UnmarshalText returns only *Error
	}
	return &ConfigError{Line: line, Err: perr, format: "yaml", line0: line, text: s}
}

// lineProbe is a type no YAML value decodes into, so that the decoder's
// type error tells the value's line.
type lineProbe chan struct{}

// typeErrorLine finds the line in the type error of gopkg.in/yaml.v3 and
// gopkg.in/yaml.v2: "line 5: cannot unmarshal !!map into ...".
var typeErrorLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+): cannot unmarshal`) })

// errText returns err's message, or "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// valueFound says what a decoded YAML value that is not a string is.
func valueFound(v any) string {
	switch v := v.(type) {
	case map[string]any, map[any]any:
		return "a mapping"
	case []any:
		return "a list"
	case int, int64, uint, uint64, float64:
		return "the number " + clip(fmt.Sprint(v))
	case bool:
		return fmt.Sprint("the boolean ", v)
	case time.Time:
		if v.Equal(v.Truncate(24 * time.Hour)) { // a date: 2026-12-01
			return "the timestamp " + v.Format(time.DateOnly)
		}
		return "the timestamp " + clip(v.Format(time.RFC3339Nano))
	case []byte:
		return "binary data"
	}
	return notString
}

// notString is what valueFound says of a value it does not know.
const notString = "a value that is not a string"

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

// foundKind is the kind of value a Found message names, without the value
// itself: "a mapping", "the number".
func foundKind(found string) string {
	if strings.HasPrefix(found, "the ") {
		kind, _, _ := strings.Cut(found[len("the "):], " ")
		return "the " + kind
	}
	return found
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
