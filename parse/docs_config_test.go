package parse_test

import (
	"encoding/json"
	"flag"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/parse"
	"go.yaml.in/yaml/v3"
)

// TestDocConfigErrors checks every example of the section "In config
// files" of docs/language.md: a ```yaml, ```json or ```toml block, then a
// ```text block with the errors that decoding it gives; a ```text block of
// a flag's error stands alone.
func TestDocConfigErrors(t *testing.T) {
	// The types of the section, with their names, which errors show.
	type Client struct {
		Retry parse.Policy `json:"retry" yaml:"retry" toml:"retry"`
	}
	type Config struct {
		Retry   parse.Policy      `json:"retry" yaml:"retry" toml:"retry"`
		Clients map[string]Client `json:"clients" yaml:"clients" toml:"clients"`
	}
	var (
		in      bool
		lang    string   // the language of the open block, "" outside
		block   []string // its lines
		doc     string   // the last config block
		docLang string
		checked int
	)
	flagErr := regexp.MustCompile(`^invalid value "(.*)" for flag -repeat: `)
	for i, l := range languageDoc(t) {
		if strings.HasPrefix(l, "## ") {
			in = l == "## In config files"
			continue
		}
		if !in {
			continue
		}
		switch {
		case lang == "" && strings.HasPrefix(l, "```") && len(l) > 3:
			lang, block = l[3:], nil
			continue
		case lang != "" && l == "```":
		default:
			if lang != "" {
				block = append(block, l)
			}
			continue
		}
		text := strings.Join(block, "\n")
		switch lang {
		case "yaml", "json", "toml":
			doc, docLang = text+"\n", lang
		case "text":
			var got []string
			var c Config
			switch {
			case flagErr.MatchString(text):
				fs := flag.NewFlagSet("doc", flag.ContinueOnError)
				fs.SetOutput(io.Discard)
				var p parse.Policy
				fs.TextVar(&p, "repeat", parse.Policy{}, "")
				got = append(got, errText(fs.Parse([]string{"-repeat", flagErr.FindStringSubmatch(text)[1]})))
			case docLang == "yaml":
				err := yaml.Unmarshal([]byte(doc), &c)
				got = append(got, errText(err), errText(parse.LocateYAML([]byte(doc), err)))
			case docLang == "json":
				err := json.Unmarshal([]byte(doc), &c)
				got = append(got, errText(err), errText(parse.LocateJSON([]byte(doc), err)))
			case docLang == "toml":
				_, err := toml.Decode(doc, &c)
				got = append(got, errText(err))
			default:
				t.Fatalf("line %d: an error block without a config block before it", i+1)
			}
			if diff := cmp.Diff(text, strings.Join(got, "\n")); diff != "" {
				t.Errorf("line %d: %s example %q (-doc +got):\n%s", i+1, docLang, doc, diff)
			}
			checked++
			doc, docLang = "", ""
		}
		lang = ""
	}
	if checked < 7 {
		t.Errorf("checked %d examples, want at least 7", checked)
	}
}
