package parse_test

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/parse"
)

// TestDocLimits checks the table of section "Policies" of docs/limits.md:
// each limit's value is the constant's, and each error text is what Parse
// gives for an input past the limit.
func TestDocLimits(t *testing.T) {
	b, err := os.ReadFile("../docs/limits.md")
	if err != nil {
		t.Fatal(err)
	}
	constants := map[string]int{
		"MaxLen": parse.MaxLen, "MaxTokens": parse.MaxTokens,
		"MaxDepth": parse.MaxDepth, "MaxQuoted": parse.MaxQuoted,
	}
	inputs := map[string]string{
		"length":                     strings.Repeat("(", 1<<20),
		"tokens":                     "Times(" + strings.Repeat("1, ", 20_000) + "1)",
		"nesting":                    strings.Repeat("(", parse.MaxLen),
		"a token quoted in an error": strings.Repeat("x", 60_000) + "(3)",
		"a UTF-8 byte order mark":    "times(1) \ufeff",
	}
	value := regexp.MustCompile("`parse\\.(\\w+)` = (\\d+)")
	lastCode := regexp.MustCompile("`([^`]*)`$")
	in, rows := false, 0
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "## ") {
			in = l == "## Policies"
		}
		if !in || !strings.HasPrefix(l, "| ") || strings.HasPrefix(l, "| what ") {
			continue
		}
		cells := strings.Split(strings.Trim(l, "|"), " | ")
		if len(cells) != 4 {
			t.Errorf("row %q has %d cells, want 4", l, len(cells))
			continue
		}
		what := strings.TrimSpace(cells[0])
		rows++
		if m := value.FindStringSubmatch(cells[1]); m != nil {
			if n, _ := strconv.Atoi(m[2]); n != constants[m[1]] {
				t.Errorf("%s: doc says parse.%s = %d, it is %d", what, m[1], n, constants[m[1]])
			}
		}
		src, ok := inputs[what]
		if !ok {
			t.Errorf("row %q: no input to check its error text", what)
			continue
		}
		m := lastCode.FindStringSubmatch(strings.TrimSpace(cells[3]))
		if m == nil {
			t.Errorf("row %q: no error text", what)
			continue
		}
		_, perr := parse.Parse(src)
		if diff := cmp.Diff(m[1], errText(perr)); diff != "" {
			t.Errorf("row %q (-doc +got):\n%s", what, diff)
		}
	}
	if rows != len(inputs) {
		t.Errorf("checked %d rows, want %d", rows, len(inputs))
	}
}
