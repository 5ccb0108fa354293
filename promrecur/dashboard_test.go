package promrecur_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/promrecur"
)

// dashboardQueries returns the PromQL of every panel and variable of
// docs/grafana-dashboard.json: each "expr", and each "query" string.
func dashboardQueries(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("../docs/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash any
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("docs/grafana-dashboard.json: %v", err)
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && (k == "expr" || k == "query" && strings.Contains(s, "recur_")) {
					out = append(out, s)
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(dash)
	if len(out) == 0 {
		t.Fatal("docs/grafana-dashboard.json has no queries")
	}
	return out
}

// docQueries returns the ```promql blocks of docs/metrics.md.
func docQueries(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("../docs/metrics.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile("(?s)```promql\n(.*?)```").FindAllStringSubmatch(string(data), -1) {
		out = append(out, strings.TrimSpace(m[1]))
	}
	if len(out) == 0 {
		t.Fatal("docs/metrics.md has no promql blocks")
	}
	return out
}

var seriesName = regexp.MustCompile(`\brecur_[a-z_]+`)

// TestQueriesNameExportedSeries: every query of the dashboard and of
// docs/metrics.md names only series the package exports, and the
// dashboard shows every one of them.
func TestQueriesNameExportedSeries(t *testing.T) {
	exported := map[string]string{} // a series name to the exported name it belongs to
	for _, n := range promrecur.Names() {
		exported[n] = n
		if strings.HasSuffix(n, "_seconds") { // the histogram's series
			for _, s := range []string{"_bucket", "_sum", "_count"} {
				exported[n+s] = n
			}
		}
	}
	used := map[string]bool{}
	for _, src := range []struct {
		file    string
		queries []string
	}{{"docs/grafana-dashboard.json", dashboardQueries(t)}, {"docs/metrics.md", docQueries(t)}} {
		for _, q := range src.queries {
			names := seriesName.FindAllString(q, -1)
			if len(names) == 0 {
				t.Errorf("%s: query %q names no recur_ series", src.file, q)
			}
			for _, n := range names {
				if exported[n] == "" {
					t.Errorf("%s: query %q names %s, which promrecur does not export", src.file, q, n)
				}
				if src.file == "docs/grafana-dashboard.json" {
					used[exported[n]] = true
				}
			}
			if err := balanced(q); err != nil {
				t.Errorf("%s: query %q: %v", src.file, q, err)
			}
		}
	}
	var unused []string
	for _, n := range promrecur.Names() {
		if !used[n] {
			unused = append(unused, n)
		}
	}
	if diff := cmp.Diff([]string(nil), unused); diff != "" {
		t.Errorf("series the dashboard does not show (-want +got):\n%s", diff)
	}
}

// balanced reports unbalanced brackets or quotes in q.
func balanced(q string) error {
	var stack []rune
	pairs := map[rune]rune{')': '(', ']': '[', '}': '{'}
	inQuote := false
	for _, r := range q {
		switch {
		case r == '"':
			inQuote = !inQuote
		case inQuote:
		case r == '(' || r == '[' || r == '{':
			stack = append(stack, r)
		case pairs[r] != 0:
			if len(stack) == 0 || stack[len(stack)-1] != pairs[r] {
				return fmt.Errorf("unbalanced %q", r)
			}
			stack = stack[:len(stack)-1]
		}
	}
	if inQuote || len(stack) > 0 {
		return fmt.Errorf("unclosed %q", append(stack, '"'))
	}
	return nil
}

// TestQueriesParse checks every query of the dashboard and of
// docs/metrics.md with Prometheus's own parser, through promtool (from
// Debian's prometheus package), as the expressions of recording rules.
// Grafana's variables are replaced by values Prometheus accepts.
func TestQueriesParse(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("promtool not found: apt-get install prometheus")
		}
		t.Skip("promtool not found: apt-get install prometheus")
	}
	grafana := strings.NewReplacer("$__rate_interval", "1m", "$client", ".*", "$target", ".*")
	var rules bytes.Buffer
	rules.WriteString("groups:\n- name: recur\n  rules:\n")
	queries := append(dashboardQueries(t), docQueries(t)...)
	for i, q := range queries {
		if strings.HasPrefix(q, "label_values(") {
			continue // a Grafana function, not PromQL; its selector is checked below
		}
		expr, _ := json.Marshal(grafana.Replace(q)) // a JSON string is a YAML string
		fmt.Fprintf(&rules, "  - record: recur:query_%d\n    expr: %s\n", i, expr)
	}
	for i, q := range queries {
		if sel, ok := strings.CutPrefix(q, "label_values("); ok {
			sel, _, _ = strings.Cut(sel, ",")
			expr, _ := json.Marshal(grafana.Replace(sel))
			fmt.Fprintf(&rules, "  - record: recur:variable_%d\n    expr: %s\n", i, expr)
		}
	}
	file := filepath.Join(t.TempDir(), "rules.yml")
	if err := os.WriteFile(file, rules.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(promtool, "check", "rules", file).CombinedOutput()
	if err != nil {
		t.Errorf("promtool check rules: %v\n%s\nrules:\n%s", err, out, rules.Bytes())
	}
	if !bytes.Contains(out, []byte(fmt.Sprintf("SUCCESS: %d rules found", len(queries)))) {
		t.Errorf("promtool did not check all %d queries:\n%s", len(queries), out)
	}
}
