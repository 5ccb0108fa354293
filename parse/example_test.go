package parse_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/recur-go/recur/parse"
)

func ExampleParse() {
	// The README's policy in the classic spelling: bare integers are milliseconds.
	s, err := parse.Parse("Intersect(backoff(100, 30000), times(5))")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s)

	// The same policy in infix form parses to an equal value.
	t, _ := parse.Parse("backoff(100ms, 30s) & times(5)")
	fmt.Println(s == t)

	// & binds tighter than |, | tighter than then, and upto binds loosest.
	u, _ := parse.Parse("times(3) then spaced(1m) & times(10) | forever upto 1h")
	fmt.Println(u)
	// Output:
	// Intersect(Jittered(Exponential(100ms, 200%, 30s), 50%, 100%), Times(5))
	// true
	// UpTo(AndThen(Times(3), Union(Intersect(Spaced(1m0s), Times(10)), Forever)), 1h0m0s)
}

func ExampleParse_namedArguments() {
	s, _ := parse.Parse(`
		# Grow by half each time, from a quarter second to a minute.
		Exponential(base = 250ms, factor = 150%, cap = 1m)
		  & Times(n: 8)`)
	fmt.Println(s)
	// Output:
	// Intersect(Exponential(250ms, 150%, 1m0s), Times(8))
}

func ExampleFormat() {
	s, _ := parse.Parse("UpTo(AndThen(Times(3), Union(Intersect(Jittered(Exponential(100ms, 200%, 30s), 50%, 100%), Times(5)), Spaced(1m0s))), 1h0m0s)")
	fmt.Println(parse.Format(s, parse.Infix))
	fmt.Println(parse.Format(s, parse.Canonical))
	// Output:
	// times(3) then backoff(100ms, 30s) & times(5) | spaced(1m0s) upto 1h0m0s
	// UpTo(AndThen(Times(3), Union(Intersect(Jittered(Exponential(100ms, 200%, 30s), 50%, 100%), Times(5)), Spaced(1m0s))), 1h0m0s)
}

func ExampleError() {
	_, err := parse.Parse("Intersect(Exponental(100ms, 200%, 30s), Times(5))")
	fmt.Println(err)

	var perr *parse.Error
	if errors.As(err, &perr) {
		fmt.Println(perr.Caret())
	}
	// Output:
	// 1:11: unknown name "Exponental"; did you mean "Exponential"?
	// Intersect(Exponental(100ms, 200%, 30s), Times(5))
	//           ^
}

func ExampleError_validation() {
	_, err := parse.Parse("backoff(100ms, 30s)\n  & Jittered(Times(5), low=120%, high=100%)")
	fmt.Println(err)
	fmt.Println(err.(*parse.Error).Caret())
	// Output:
	// 2:28: Jittered: low 120% above high 100%
	//   & Jittered(Times(5), low=120%, high=100%)
	//                            ^
}

func ExamplePolicy() {
	// A service's settings, with the retry policy as text.
	type Config struct {
		Endpoint string       `json:"endpoint"`
		Retry    parse.Policy `json:"retry"`
	}
	doc := `{
		"endpoint": "https://billing.example/charge",
		"retry": "backoff(100ms, 30s) & times(5)"
	}`
	var c Config
	if err := json.Unmarshal([]byte(doc), &c); err != nil {
		fmt.Println(err)
		return
	}
	// c.Retry.Schedule is the schedule.Schedule to hand to a runner.
	fmt.Println(c.Retry.Schedule)

	// It is written back in canonical form.
	out, _ := json.Marshal(c)
	fmt.Println(string(out))

	// A mistake in the policy is reported when the config is read, with
	// the key and the character of the string at fault.
	err := json.Unmarshal([]byte(`{"retry": "backoff(100ms, 30s) & times(0)"}`), &c)
	fmt.Println(err)
	// Output:
	// Intersect(Jittered(Exponential(100ms, 200%, 30s), 50%, 100%), Times(5))
	// {"endpoint":"https://billing.example/charge","retry":"Intersect(Jittered(Exponential(100ms, 200%, 30s), 50%, 100%), Times(5))"}
	// json: cannot unmarshal "backoff(100ms, 30s) & times(0)" (character 29 of the string: Times: n 0 is below 1) into Go struct field Config.retry of type parse.Policy
}

// checkoutRetry is a policy fixed in the program: a mistake in its text
// panics when the package is initialized, long before any call needs it.
var checkoutRetry = parse.MustParse("backoff(100ms, 30s) & times(5)")

func ExampleMustParse() {
	fmt.Println(checkoutRetry)

	// Invalid text panics with the same *Error that Parse returns.
	defer func() {
		err, _ := recover().(*parse.Error)
		fmt.Println("panic:", err)
	}()
	parse.MustParse("times(0)")
	// Output:
	// Intersect(Jittered(Exponential(100ms, 200%, 30s), 50%, 100%), Times(5))
	// panic: 1:7: Times: n 0 is below 1
}
