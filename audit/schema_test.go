package audit_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/audit"
	"go.yaml.in/yaml/v3"
)

func loadSchema(t *testing.T) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "docs", "audit-plan.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// jsonFields returns the JSON names of a struct type's fields.
func jsonFields(typ reflect.Type) []string {
	var out []string
	for f := range typ.Fields() {
		out = append(out, strings.Split(f.Tag.Get("json"), ",")[0])
	}
	sort.Strings(out)
	return out
}

func keys(m any) []string {
	var out []string
	for k := range m.(map[string]any) {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestSchemaMatchesTypes checks that the schema documents exactly the
// fields of the plan types, and the budget kinds.
func TestSchemaMatchesTypes(t *testing.T) {
	s := loadSchema(t)
	defs := s["$defs"].(map[string]any)
	objects := map[string]map[string]any{"plan": s}
	for _, name := range []string{"layer", "breaker", "budget", "operation"} {
		objects[name] = defs[name].(map[string]any)
	}
	types := map[string]reflect.Type{
		"plan": reflect.TypeFor[audit.Plan](), "layer": reflect.TypeFor[audit.Layer](), "breaker": reflect.TypeFor[audit.Breaker](),
		"budget": reflect.TypeFor[audit.Budget](), "operation": reflect.TypeFor[audit.Operation](),
	}
	for name, typ := range types {
		if diff := cmp.Diff(jsonFields(typ), keys(objects[name]["properties"])); diff != "" {
			t.Errorf("schema %s vs %v fields (-Go +schema):\n%s", name, typ, diff)
		}
		if objects[name]["additionalProperties"] != false {
			t.Errorf("schema %s allows other properties; Decode does not", name)
		}
	}
	kinds := defs["budget"].(map[string]any)["properties"].(map[string]any)["kind"].(map[string]any)["enum"]
	if diff := cmp.Diff([]any{audit.TokenBucket, audit.Ratio, audit.Adaptive}, kinds); diff != "" {
		t.Errorf("budget kinds (-Go +schema):\n%s", diff)
	}
}

// TestSchemaAcceptsExamples checks the example plans against the schema
// with a small validator for the keywords it uses, and that it rejects
// what Decode rejects.
func TestSchemaAcceptsExamples(t *testing.T) {
	s := loadSchema(t)
	paths, _ := filepath.Glob(filepath.Join("..", "examples", "audit", "*"))
	n := 0
	for _, path := range paths {
		if strings.HasSuffix(path, ".txt") || strings.HasSuffix(path, ".report.json") {
			continue
		}
		n++
		if errs := validate(s, s, plainJSON(t, path, nil)); len(errs) > 0 {
			t.Errorf("%s does not match the schema:\n%s", path, strings.Join(errs, "\n"))
		}
	}
	if n != 3 {
		t.Errorf("checked %d plans; want 3", n)
	}
	for _, bad := range []string{
		`{"layers": [{"name": "a", "atempt_timeout": "1s"}]}`,
		`{"layers": [{"name": "a", "attempt_timeout": "10"}]}`,
		`{"layers": [{"name": "a", "budget": {"kind": "leaky"}}]}`,
		`{"layers": [{"name": "a", "retry_on": [99]}]}`,
		`{"layers": []}`,
		`{"deadline": "1s"}`,
	} {
		if _, err := audit.Decode([]byte(bad)); err == nil && audit.Run(mustDecode(t, bad)).Findings[0].ID != "invalid-plan" {
			t.Errorf("%s: Decode and Run accept it; the test expects a plan they reject", bad)
		}
		if errs := validate(s, s, plainJSON(t, "", []byte(bad))); len(errs) == 0 {
			t.Errorf("the schema accepts %s", bad)
		}
	}
}

func mustDecode(t *testing.T, src string) audit.Plan {
	p, err := audit.Decode([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// plainJSON reads a YAML or JSON file (or data) into the values
// encoding/json gives: maps, slices, strings, float64, bool.
func plainJSON(t *testing.T, path string, data []byte) any {
	t.Helper()
	if path != "" {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
	}
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	json.Unmarshal(b, &out)
	return out
}

// validate checks v against schema node n, for the keywords the plan
// schema uses, and returns what does not match.
func validate(root, n map[string]any, v any) []string {
	if ref, ok := n["$ref"].(string); ok {
		def := root["$defs"].(map[string]any)[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		return validate(root, def, v)
	}
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	if enum, ok := n["enum"].([]any); ok && !slices.Contains(enum, v) {
		bad("%v is not one of %v", v, enum)
	}
	switch n["type"] {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			bad("%v is not an object", v)
			break
		}
		props, _ := n["properties"].(map[string]any)
		req, _ := n["required"].([]any)
		for _, r := range req {
			if _, ok := m[r.(string)]; !ok {
				bad("missing %s", r)
			}
		}
		for k, e := range m {
			p, ok := props[k]
			if !ok {
				bad("unknown property %s", k)
				continue
			}
			errs = append(errs, validate(root, p.(map[string]any), e)...)
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			bad("%v is not an array", v)
			break
		}
		if mi, ok := n["minItems"].(float64); ok && len(a) < int(mi) {
			bad("fewer than %v items", mi)
		}
		if ma, ok := n["maxItems"].(float64); ok && len(a) > int(ma) {
			bad("more than %v items", ma)
		}
		for _, e := range a {
			errs = append(errs, validate(root, n["items"].(map[string]any), e)...)
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			bad("%v is not a string", v)
			break
		}
		if p, ok := n["pattern"].(string); ok && !regexp.MustCompile(p).MatchString(str) {
			bad("%q does not match %s", str, p)
		}
	case "integer", "number":
		f, ok := v.(float64)
		if !ok || n["type"] == "integer" && f != float64(int64(f)) {
			bad("%v is not an %s", v, n["type"])
			break
		}
		if mi, ok := n["minimum"].(float64); ok && f < mi {
			bad("%v is below %v", f, mi)
		}
		if ma, ok := n["maximum"].(float64); ok && f > ma {
			bad("%v is above %v", f, ma)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			bad("%v is not a boolean", v)
		}
	}
	return errs
}

func TestSchemaLayerLimit(t *testing.T) {
	s := loadSchema(t)
	max := s["properties"].(map[string]any)["layers"].(map[string]any)["maxItems"]
	if max != float64(audit.MaxLayers) {
		t.Errorf("schema maxItems of layers = %v; want audit.MaxLayers = %d", max, audit.MaxLayers)
	}
}
