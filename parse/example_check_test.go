package parse_test

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
	"go.yaml.in/yaml/v3"
)

// Check fails a configuration whose required policy is missing, here
// under a misspelt key, when it is loaded, and fills a policy that has a
// default.
func ExampleCheck() {
	type Client struct {
		Retry parse.Policy `yaml:"retry" policy:"required"`
		Hedge parse.Policy `yaml:"hedge" policy:"default=spaced(50ms) & times(2)"`
	}
	type Config struct {
		Clients map[string]Client `yaml:"clients"`
	}
	doc := []byte(`clients:
  billing:
    retyr: backoff(100ms, 30s) & times(5)
  search:
    retry: fulljitter(100ms, 2s) & times(3)
`)
	var cfg Config
	if err := yaml.Unmarshal(doc, &cfg); err != nil {
		fmt.Println(err)
		return
	}
	err := parse.Check(&cfg)
	fmt.Println(err)
	fmt.Println(errors.Is(err, parse.ErrNotSet))
	fmt.Println(cfg.Clients["search"].Hedge)
	// Output:
	// clients.billing.retry: no policy set, and one is required (is the key spelled "retry" in the file?)
	// true
	// Intersect(Spaced(50ms), Times(2))
}

// Or gives an unset policy its default where it is used.
func ExamplePolicy_Or() {
	var cfg struct {
		Retry parse.Policy `json:"retry"`
	}
	// cfg.Retry was not in the file.
	fmt.Println(cfg.Retry.Or(schedule.Times{N: 3}))
	cfg.Retry = parse.Policy{Schedule: parse.MustParse("spaced(1s) & times(5)")}
	fmt.Println(cfg.Retry.Or(schedule.Times{N: 3}))
	// Output:
	// Times(3)
	// Intersect(Spaced(1s), Times(5))
}

// DecodeHook is mapstructure's decode hook for a Policy, for viper and
// koanf: mapstructure calls it with the type of the value it has and of
// the field it fills. Here it is called as mapstructure would.
func ExampleDecodeHook() {
	hook := parse.DecodeHook()
	to := reflect.TypeFor[parse.Policy]()
	for _, data := range []any{"backoff(100ms, 30s) & times(5)", map[string]any{"times": 5}, 5} {
		p, err := hook(reflect.TypeOf(data), to, data)
		fmt.Println(p, err)
	}
	// Output:
	// Intersect(Jittered(Exponential(100ms, 200%, 30s), 50%, 100%), Times(5)) <nil>
	// <nil> found a mapping; a policy is a string such as "backoff(100ms, 30s) & times(5)"
	// <nil> found the number 5; a policy is a string such as "backoff(100ms, 30s) & times(5)"
}
