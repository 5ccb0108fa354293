package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigGolden(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		stdin string
		code  int
	}{
		// A value at the key path that is not a string is an error at its
		// position; the strings beside it are still checked.
		{"check_yaml_misfit", []string{"check", "-f", "misfit.yaml", "--key", "clients.*.retry"}, "", 1},
		{"check_toml_misfit", []string{"check", "-f", "misfit.toml", "--key", "clients.*.retry"}, "", 1},
		{"check_json_misfit", []string{"check", "--json", "-f", "misfit.json", "--key", "clients.*.retry"}, "", 1},
		// An alias repeats a policy at each key; a TOML multi-line string
		// is located on its own lines.
		{"check_yaml_aliases", []string{"check", "-f", "aliases.yaml", "--key", "clients.*.retry"}, "", 1},
		{"check_toml_multiline", []string{"check", "-f", "multiline.toml", "--key", "clients.*.retry"}, "", 1},
		// A config file given without --key gets a hint naming the flag.
		{"check_yaml_no_key", []string{"check", "-f", "service.yaml"}, "", 1},
		{"check_toml_no_key", []string{"check", "-f", "service.toml"}, "", 1},
		{"check_stdin_no_key", []string{"check", "-f", "-"}, "# a config\nclients:\n  a:\n    retry: times(3)\n", 1},
		// A plan without layers is a usage error, not a score.
		{"audit_no_layers", []string{"audit", "-"}, "name: empty\nlayers: []\n", 2},
		{"audit_unknown_nested_key", []string{"audit", "-"}, "layers:\n  - retry: times(2)\n    breaker:\n      windw: 10s\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkGolden(t, tt.name, tt.stdin, tt.args, tt.code) })
	}
}

// TestHostileInput runs each hostile input of the kind that used to read
// without limit, recurse through aliases or take quadratic time, and
// checks that it is refused with an error that says why.
func TestHostileInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	laughs := "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
	for i, c := range "bcdefghi" {
		prev := string("abcdefghi"[i])
		laughs += string(c) + ": &" + string(c) + " [" + strings.TrimSuffix(strings.Repeat("*"+prev+", ", 9), ", ") + "]\n"
	}
	laughs += "x: *i\n"
	big := strings.Repeat("x", maxInput+1)
	tests := []struct {
		name  string
		args  []string
		stdin string
		code  int
		want  string // in stderr
	}{
		{"alias cycle", []string{"check", "-f", write("cycle.yaml", "x: &a [*a]\n"), "--key", "x"}, "", 1, "refers to a node that contains it"},
		{"billion laughs", []string{"check", "-f", write("laughs.yaml", laughs), "--key", "x"}, "", 1, "aliases expand to more than 100000 nodes"},
		{"nested TOML arrays", []string{"check", "-f", write("deep.toml", "x = "+strings.Repeat("[", 40000)+`"t"`+strings.Repeat("]", 40000)+"\n"), "--key", "x"}, "", 1,
			"deep.toml:1:105: lists and tables nested more than 100 deep"},
		{"nested TOML inline tables", []string{"check", "-f", write("tables.toml", "x = "+strings.Repeat("{a=", 16000)+`"t"`+strings.Repeat("}", 16000)+"\n"), "--key", "x"}, "", 1,
			"lists and tables nested more than 100 deep"},
		{"nested JSON", []string{"check", "-f", write("deep.json", `{"x": `+strings.Repeat("[", 9000)+strings.Repeat("]", 9000)+"}"), "--key", "x"}, "", 1,
			"deep.json:1:106: lists and tables nested more than 100 deep"},
		{"long dotted TOML key", []string{"check", "-f", write("dots.toml", strings.Repeat("k.", 200)+"x = 1\n"), "--key", "x"}, "", 1,
			"a dotted key more than 100 keys long"},
		{"dev zero", []string{"check", "-f", "/dev/zero"}, "", 2, "/dev/zero: input is longer than the limit of 1048576 bytes (1 MiB)"},
		{"dev zero with key", []string{"check", "-f", "/dev/zero", "--key", "x"}, "", 2, "limit of 1048576 bytes"},
		{"long stdin", []string{"check", "-f", "-"}, big, 2, "-: input is longer than the limit of 1048576 bytes"},
		{"audit dev zero", []string{"audit", "/dev/zero"}, "", 2, "limit of 1048576 bytes"},
		{"audit alias cycle", []string{"audit", "-"}, "layers: &a [*a]\n", 1, "refers to a node that contains it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errs, code := schedcheck(t, tt.stdin, tt.args...)
			if code != tt.code || !strings.Contains(errs, tt.want) {
				t.Errorf("exit status %d, stderr:\n%s\nwant status %d and %q", code, errs, tt.code, tt.want)
			}
		})
	}
}

func TestKeyPathString(t *testing.T) {
	p := keyPath{"clients", index(3), "[x]", index(0), "retry"}
	if got, want := p.String(), "clients[3].[x][0].retry"; got != want {
		t.Errorf("String() = %q; want %q", got, want)
	}
}

func TestSniffConfig(t *testing.T) {
	tests := map[string]string{
		"times(3)":                            "",
		"# retry\nbackoff(1s, 1m) & times(5)": "",
		"# svc\nclients:\n  a: 1\n":           "YAML",
		"---\nretry: times(3)\n":              "YAML",
		"retry = \"times(3)\"\n":              "TOML",
		"[clients.a]\nretry = 'x'\n":          "TOML",
		"{\"retry\": \"times(3)\"}":           "JSON",
		"spaced(1s)\nretry: x":                "",
	}
	for text, want := range tests {
		if got := sniffConfig(text); got != want {
			t.Errorf("sniffConfig(%q) = %q; want %q", text, got, want)
		}
	}
}
