package configtest

import (
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"strings"
	"testing"

	btoml "github.com/BurntSushi/toml"
	"github.com/caarlos0/env/v11"
	"github.com/go-viper/mapstructure/v2"
	"github.com/kelseyhightower/envconfig"
	kyaml "github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/rawbytes"
	"github.com/knadh/koanf/v2"
	ptoml "github.com/pelletier/go-toml/v2"
	"github.com/recur-go/recur/parse"
	"github.com/spf13/viper"
	goyaml "go.yaml.in/yaml/v3"
	yamlv2 "gopkg.in/yaml.v2"
	yamlv3 "gopkg.in/yaml.v3"
	sigsyaml "sigs.k8s.io/yaml"
)

// Config is the configuration every test decodes, with the tags of every
// library: a policy at the top and one two keys down, in a map.
type Config struct {
	Retry   parse.Policy      `json:"retry" yaml:"retry" toml:"retry" mapstructure:"retry" koanf:"retry" env:"RETRY" policy:"required"`
	Clients map[string]Client `json:"clients" yaml:"clients" toml:"clients" mapstructure:"clients" koanf:"clients"`
}

// Client is a part of Config with its own policy.
type Client struct {
	Retry parse.Policy `json:"retry" yaml:"retry" toml:"retry" mapstructure:"retry" koanf:"retry" policy:"default=fulljitter(100ms, 2s) & times(3)"`
}

// decoder decodes doc into c the way a program using one library does,
// and returns the error lines a user sees: the library's error and, where
// recur has a Locate function for it, what that makes of it.
type decoder func(t *testing.T, doc string, c *Config) []string

// decoders are the libraries, by the names docs/language.md gives them.
var decoders = map[string]decoder{
	"go.yaml.in/yaml/v3": func(t *testing.T, doc string, c *Config) []string {
		err := goyaml.Unmarshal([]byte(doc), c)
		return located(err, parse.LocateYAML([]byte(doc), err))
	},
	"gopkg.in/yaml.v3": func(t *testing.T, doc string, c *Config) []string {
		err := yamlv3.Unmarshal([]byte(doc), c)
		return located(err, parse.LocateYAML([]byte(doc), err))
	},
	"gopkg.in/yaml.v2": func(t *testing.T, doc string, c *Config) []string {
		err := yamlv2.Unmarshal([]byte(doc), c)
		return located(err, parse.LocateYAML([]byte(doc), err))
	},
	"sigs.k8s.io/yaml": func(t *testing.T, doc string, c *Config) []string {
		err := sigsyaml.Unmarshal([]byte(doc), c)
		return located(err, parse.LocateYAML([]byte(doc), err))
	},
	"encoding/json": func(t *testing.T, doc string, c *Config) []string {
		err := json.Unmarshal([]byte(doc), c)
		return located(err, parse.LocateJSON([]byte(doc), err))
	},
	"github.com/BurntSushi/toml": func(t *testing.T, doc string, c *Config) []string {
		_, err := btoml.Decode(doc, c)
		return lines(err)
	},
	"github.com/pelletier/go-toml/v2": func(t *testing.T, doc string, c *Config) []string {
		return lines(ptoml.Unmarshal([]byte(doc), c))
	},
	// With DisallowUnknownFields, a table at a policy is an error, and
	// the error's String method shows the line.
	"github.com/pelletier/go-toml/v2, strict": func(t *testing.T, doc string, c *Config) []string {
		err := ptoml.NewDecoder(strings.NewReader(doc)).DisallowUnknownFields().Decode(c)
		var strict *ptoml.StrictMissingError
		if errors.As(err, &strict) {
			return append(lines(err), strings.Split(strings.TrimRight(strict.String(), "\n"), "\n")...)
		}
		return lines(err)
	},
	"github.com/spf13/viper": func(t *testing.T, doc string, c *Config) []string {
		v := viper.New()
		v.SetConfigType(configType(doc))
		if err := v.ReadConfig(strings.NewReader(doc)); err != nil {
			t.Fatalf("viper cannot read %q: %v", doc, err)
		}
		return lines(v.Unmarshal(c, viper.DecodeHook(mapstructure.ComposeDecodeHookFunc(
			parse.DecodeHook(), mapstructure.StringToTimeDurationHookFunc()))))
	},
	"github.com/knadh/koanf/v2": func(t *testing.T, doc string, c *Config) []string {
		k := koanf.New(".")
		if err := k.Load(rawbytes.Provider([]byte(doc)), kyaml.Parser()); err != nil {
			t.Fatalf("koanf cannot read %q: %v", doc, err)
		}
		return lines(k.UnmarshalWithConf("", c, koanf.UnmarshalConf{DecoderConfig: &mapstructure.DecoderConfig{
			DecodeHook:       mapstructure.ComposeDecodeHookFunc(parse.DecodeHook(), mapstructure.StringToTimeDurationHookFunc()),
			Result:           c,
			WeaklyTypedInput: true,
		}}))
	},
	// The environment decoders take doc as the value of RETRY.
	"github.com/caarlos0/env/v11": func(t *testing.T, doc string, c *Config) []string {
		t.Setenv("RETRY", doc)
		return lines(env.Parse(c))
	},
	"github.com/kelseyhightower/envconfig": func(t *testing.T, doc string, c *Config) []string {
		t.Setenv("RETRY", doc)
		var e struct {
			Retry parse.Policy `envconfig:"RETRY"`
		}
		err := envconfig.Process("", &e)
		c.Retry = e.Retry
		return lines(err)
	},
	"os.Getenv": func(t *testing.T, doc string, c *Config) []string {
		t.Setenv("RETRY", doc)
		return lines(retryFromEnv(c))
	},
	// flag takes doc as the value of -retry.
	"flag": func(t *testing.T, doc string, c *Config) []string {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.TextVar(&c.Retry, "retry", parse.Policy{}, "retry policy")
		return lines(fs.Parse([]string{"-retry", doc}))
	},
}

// retryFromEnv reads RETRY as docs/language.md shows it.
func retryFromEnv(c *Config) error {
	if s, ok := os.LookupEnv("RETRY"); ok {
		if err := c.Retry.Set(s); err != nil {
			return errors.New("RETRY: " + err.Error())
		}
	}
	return nil
}

// configType guesses viper's config type of doc.
func configType(doc string) string {
	if strings.HasPrefix(strings.TrimSpace(doc), "{") {
		return "json"
	}
	return "yaml"
}

// located returns the lines of err, and of loc, what a Locate function
// made of it; only err's when err is nil.
func located(err, loc error) []string {
	if err == nil {
		return nil
	}
	return append(lines(err), lines(loc)...)
}

// lines returns the lines of err's message, or none for nil.
func lines(err error) []string {
	if err == nil {
		return nil
	}
	return strings.Split(err.Error(), "\n")
}
