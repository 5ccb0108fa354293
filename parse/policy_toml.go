package parse

import (
	"errors"
	"fmt"
	"time"
)

// UnmarshalTOML reads a policy from a TOML string, for
// github.com/BurntSushi/toml, which hands it the decoded value and reports
// its error with the key and its line:
//
//	toml: line 3 (last key "clients.retry"): 1:7: Times: n 0 is below 1
//
// Without it, that decoder would hand a number or a boolean to
// UnmarshalText as text, and fail on a table with a message about types.
// Any value that is not a string (a table, an array, a number, a boolean,
// a date) is an error that says what was found. As with UnmarshalText, the
// empty string sets the zero Policy. On error, p is unchanged.
//
// github.com/pelletier/go-toml/v2 does not call this method (its
// Unmarshaler, behind an option, takes the raw bytes): it calls
// UnmarshalText for strings, and reports the error with the key and the
// line and column where the value starts.
func (p *Policy) UnmarshalTOML(v any) error {
	s, ok := v.(string)
	if !ok {
		return errors.New(wrongType(tomlFound(v)))
	}
	return p.UnmarshalText([]byte(s))
}

// tomlFound says what a decoded TOML value that is not a string is.
func tomlFound(v any) string {
	switch v := v.(type) {
	case map[string]any:
		return "a table"
	case []any, []map[string]any:
		return "an array"
	case int64, float64:
		return "the number " + clip(fmt.Sprint(v))
	case bool:
		return fmt.Sprint("the boolean ", v)
	case time.Time:
		return "a date or time"
	}
	return "a value that is not a string"
}
