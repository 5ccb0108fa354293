package main

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"
)

// configPolicies returns every string at the dotted key path in a JSON,
// YAML or TOML config file. A path segment "*" matches every key of a
// mapping; a sequence on the way applies the rest of the path to each of
// its elements, and a sequence of strings at the end yields each string.
func configPolicies(name string, data []byte, key string) ([]source, error) {
	path := strings.Split(key, ".")
	switch strings.ToLower(filepath.Ext(name)) {
	case ".toml":
		var v any
		if _, err := toml.Decode(string(data), &v); err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		var out []source
		collectAny(v, path, "", func(at, text string) {
			out = append(out, source{name: name, key: at, text: text, line: 1, file: data})
		})
		return out, nil
	default: // YAML, and JSON, which YAML reads too
		var doc yaml.Node
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		if len(doc.Content) == 0 {
			return nil, nil
		}
		var out []source
		collectNode(doc.Content[0], path, "", func(at string, n *yaml.Node) {
			line := n.Line
			if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
				line++ // a block scalar starts on the line after its indicator
			}
			out = append(out, source{name: name, key: at, text: n.Value, line: line, file: data})
		})
		return out, nil
	}
}

func collectNode(n *yaml.Node, path []string, at string, emit func(string, *yaml.Node)) {
	switch {
	case n.Kind == yaml.AliasNode:
		collectNode(n.Alias, path, at, emit)
	case n.Kind == yaml.SequenceNode:
		for i, e := range n.Content {
			collectNode(e, path, at+"["+strconv.Itoa(i)+"]", emit)
		}
	case len(path) == 0:
		if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
			emit(at, n)
		}
	case n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i].Value; path[0] == "*" || k == path[0] {
				collectNode(n.Content[i+1], path[1:], join(at, k), emit)
			}
		}
	}
}

func collectAny(v any, path []string, at string, emit func(at, text string)) {
	switch v := v.(type) {
	case []any:
		for i, e := range v {
			collectAny(e, path, at+"["+strconv.Itoa(i)+"]", emit)
		}
	case []map[string]any:
		for i, e := range v {
			collectAny(e, path, at+"["+strconv.Itoa(i)+"]", emit)
		}
	case string:
		if len(path) == 0 {
			emit(at, v)
		}
	case map[string]any:
		if len(path) == 0 {
			return
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if path[0] == "*" || k == path[0] {
				collectAny(v[k], path[1:], join(at, k), emit)
			}
		}
	}
}

func join(at, k string) string {
	if at == "" {
		return k
	}
	return at + "." + k
}
