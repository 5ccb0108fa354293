package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"

	"github.com/recur-go/recur/internal/yamlguard"
	"github.com/recur-go/recur/parse"
	"go.yaml.in/yaml/v3"
)

// PolicyError is a policy in a plan file that does not parse. It carries
// what a caller needs to point at the spot in the file: the key path, the
// line where the policy text starts, and the text itself, to which the
// *parse.Error's Line and Column refer.
type PolicyError struct {
	Path string       // the key path, such as "layers[1].retry"
	Line int          // the line of the file where the policy text starts
	Text string       // the policy text
	Err  *parse.Error // what is wrong, located in Text
}

// Error returns the position, the policy's path in the plan and the parse error.
func (e *PolicyError) Error() string {
	return fmt.Sprintf("line %d: %s: %v", e.Line+e.Err.Line-1, e.Path, e.Err)
}

// Unwrap returns the *parse.Error.
func (e *PolicyError) Unwrap() error { return e.Err }

// MaxPlanSize is the longest plan, in bytes, that Decode reads. A plan
// has at most MaxLayers layers, each a few lines long: a megabyte is
// already far more than any real plan.
const MaxPlanSize = 1 << 20

// ErrNoLayers is the error Decode returns for a plan without layers,
// including an empty one: there is nothing to audit.
var ErrNoLayers = errors.New("the plan has no layers: nothing to audit")

// Decode reads a plan written in YAML or JSON (JSON is read as YAML, of
// which it is a subset). Unknown keys are errors (a *KeyError, which
// suggests the nearest known key), so a misspelt key does not silently
// drop a setting. A plan without layers is ErrNoLayers. A policy that
// does not parse is a *PolicyError; other errors name their line. Decode
// does not judge the plan: Run does, and Validate tells whether it is
// complete.
//
// Decode bounds its work before it parses any policy: the plan must be at
// most MaxPlanSize bytes long and have at most MaxLayers layers, and its
// YAML aliases must not refer to themselves or expand to more than a
// bounded number of nodes, so that a plan repeating one costly layer
// through aliases cannot make Decode slow.
func Decode(data []byte) (Plan, error) {
	if len(data) > MaxPlanSize {
		return Plan{}, fmt.Errorf("the plan is %d bytes long; the limit is %d", len(data), MaxPlanSize)
	}
	root, err := yamlguard.Decode(data)
	if err != nil {
		return Plan{}, err
	}
	if root == nil {
		return Plan{}, fmt.Errorf("empty plan: %w", ErrNoLayers)
	}
	if layers := field(root, "layers"); layers != nil && layers.Kind == yaml.SequenceNode && len(layers.Content) > MaxLayers {
		return Plan{}, fmt.Errorf("line %d: the plan has %d layers; at most %d are audited", layers.Line, len(layers.Content), MaxLayers)
	}
	if err := checkKeys(root, reflect.TypeFor[Plan](), "", keyWhere{}); err != nil {
		return Plan{}, err
	}
	if err := checkPolicies(root); err != nil {
		return Plan{}, err
	}
	var p Plan
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil && err != io.EOF {
		return Plan{}, err
	}
	if len(p.Layers) == 0 {
		return Plan{}, ErrNoLayers
	}
	return p, nil
}

// checkPolicies parses every policy of the plan — layers[i].retry and
// layers[i].breaker.open_for — so that a bad one is reported with its
// place in the file. (Decoding reports the parse error without it.)
func checkPolicies(root *yaml.Node) error {
	layers := field(root, "layers")
	if layers == nil || layers.Kind != yaml.SequenceNode {
		return nil
	}
	for i, l := range layers.Content {
		at := "layers[" + strconv.Itoa(i) + "]"
		if err := checkPolicy(field(l, "retry"), at+".retry"); err != nil {
			return err
		}
		if err := checkPolicy(field(field(l, "breaker"), "open_for"), at+".breaker.open_for"); err != nil {
			return err
		}
	}
	return nil
}

func checkPolicy(n *yaml.Node, path string) error {
	if n == nil || n.Kind != yaml.ScalarNode || n.Value == "" {
		return nil
	}
	if _, err := parse.Parse(n.Value); err != nil {
		var pe *parse.Error
		if !errors.As(err, &pe) {
			return fmt.Errorf("line %d: %s: %w", n.Line, path, err)
		}
		line := n.Line
		if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			line++ // a block scalar starts on the line after its indicator
		}
		return &PolicyError{Path: path, Line: line, Text: n.Value, Err: pe}
	}
	return nil
}

// field returns the value of key in mapping n, following aliases, or nil.
func field(n *yaml.Node, key string) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			v := n.Content[i+1]
			for v.Kind == yaml.AliasNode {
				v = v.Alias
			}
			return v
		}
	}
	return nil
}

// UnmarshalYAML reads a duration in Go syntax, and names the line of a bad
// one.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a duration such as 250ms", n.Line)
	}
	if err := d.UnmarshalText([]byte(n.Value)); err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	return nil
}
