package yamlguard

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name, doc, want string // want is "" for no error, else in the error
	}{
		{"plain", "a: [1, 2]\nb: {c: d}\n", ""},
		{"shared settings", "d: &d {retry: times(3), timeout: 1s}\nx: [*d, *d, *d]\n", ""},
		{"empty", "", ""},
		{"self alias", "x: &a [*a]\n", "line 1: alias *a refers to a node that contains it"},
		{"alias to a parent", "x: &a {y: [1, {z: *a}]}\n", "refers to a node that contains it"},
		{"laughs", "a: &a [" + strings.Repeat("x,", 99) + "x]\nb: &b [" + strings.Repeat("*a,", 99) + "*a]\nc: &c [" + strings.Repeat("*b,", 99) + "*b]\nd: [*c, *c]\n",
			"aliases expand to more than 100000 nodes"},
		{"long string repeated", "a: &a " + strings.Repeat("x", 60<<10) + "\nb: [" + strings.Repeat("*a,", 4000) + "*a]\n", "aliases expand to more than"},
		{"too many values", strings.Repeat("[1,", 1) + strings.Repeat("1,", MaxNodes) + "1]", "more than the limit of 100000"},
		{"not YAML", "a: [\n", "yaml:"},
	}
	for _, tt := range tests {
		_, err := Decode([]byte(tt.doc))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: Decode error %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: Decode error %v; want one containing %q", tt.name, err, tt.want)
		}
	}
}

func TestCountStartsBoundsNodes(t *testing.T) {
	for _, doc := range []string{"a: [1, 2, {b: c}]\n", "- - - x\n- y\n", "? a\n: b\n", `{"a": [1, [2, [3]]]}`} {
		root, err := Decode([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		nodes := count(root)
		if got := countStarts([]byte(doc)); got < nodes {
			t.Errorf("countStarts(%q) = %d, below the %d nodes decoded", doc, got, nodes)
		}
	}
}

func count(n *yaml.Node) int {
	c := 1
	for _, e := range n.Content {
		c += count(e)
	}
	return c
}
