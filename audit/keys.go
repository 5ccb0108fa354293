package audit

import (
	"encoding"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/recur-go/recur/internal/suggest"
)

// KeyError is a key of a plan that no field has: a misspelling, most
// likely, which decoding would otherwise drop without a word.
type KeyError struct {
	Line, Column int    // where the key is in the file, from 1
	Layer        string // the layer's name (or layers[i] if it has none); "" outside the layers
	Path         string // where the key is within the layer or plan, such as "breaker"; "" at the top
	Key          string // the unknown key
	Suggestion   string // the known key nearest to Key, or "" when none is close
}

// Error returns the position, the layer, the key and the suggestion, as
// in: 7:5: layer "api": unknown key "propagates_deadlin"; did you mean
// "propagates_deadline"?
func (e *KeyError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d:%d: ", e.Line, e.Column)
	if e.Layer != "" {
		fmt.Fprintf(&b, "layer %q: ", e.Layer)
	}
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	fmt.Fprintf(&b, "unknown key %q", e.Key)
	if e.Suggestion != "" {
		fmt.Fprintf(&b, "; did you mean %q?", e.Suggestion)
	}
	return b.String()
}

// keyWhere is where checkKeys is in the plan, for KeyError.
type keyWhere struct{ layer, path string }

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// checkKeys checks that every key of the mapping n is a field of the
// struct type t (by its yaml tag), and so on down. Types that decode
// themselves from text (Duration, parse.Policy) are leaves. Other
// mismatches of kind are left to the decoder, which reports them.
func checkKeys(n *yaml.Node, t reflect.Type, key string, at keyWhere) error {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n == nil || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return nil
	}
	switch {
	case t.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode:
		for i, e := range n.Content {
			where := at
			if t.Elem() == reflect.TypeFor[Layer]() {
				where = keyWhere{layer: layerName(e, i)}
			} else {
				where.path = join(at.path, key+"["+strconv.Itoa(i)+"]")
			}
			if err := checkKeys(e, t.Elem(), "", where); err != nil {
				return err
			}
		}
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		if key != "" {
			at.path = join(at.path, key)
		}
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			f, ok := fields[k.Value]
			if !ok {
				names := make([]string, 0, len(fields))
				for name := range fields {
					names = append(names, name)
				}
				slices.Sort(names) // ties go to the alphabetically first
				return &KeyError{Line: k.Line, Column: k.Column, Layer: at.layer, Path: at.path, Key: k.Value, Suggestion: suggest.Closest(k.Value, names)}
			}
			if err := checkKeys(n.Content[i+1], f.Type, k.Value, at); err != nil {
				return err
			}
		}
	}
	return nil
}

func join(path, key string) string {
	if path == "" || strings.HasPrefix(key, "[") {
		return path + key
	}
	return path + "." + key
}

// layerName names the i-th layer in messages: by its name, or as layers[i].
func layerName(n *yaml.Node, i int) string {
	if name := field(n, "name"); name != nil && name.Kind == yaml.ScalarNode && name.Value != "" {
		return name.Value
	}
	return "layers[" + strconv.Itoa(i) + "]"
}

// yamlFields maps the yaml names of the struct type t to its fields.
func yamlFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		out[name] = f
	}
	return out
}
