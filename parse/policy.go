package parse

import (
	"encoding"
	"flag"

	"github.com/recur-go/recur/schedule"
)

// Policy is a schedule as a configuration value: a struct field of type
// Policy reads its policy text straight from JSON, YAML, TOML, environment
// decoders and flags, because Policy implements encoding.TextUnmarshaler
// and flag.Value, and writes it back in canonical form as an
// encoding.TextMarshaler.
//
//	type Config struct {
//		Retry parse.Policy `json:"retry"`
//	}
//
// A mistake is reported where the file has it: UnmarshalYAML gives the
// line and column in the file with go.yaml.in/yaml/v3, the line with
// gopkg.in/yaml.v3 (a *ConfigError; LocateYAML adds the key, and the
// column), UnmarshalJSON the key path (a *json.UnmarshalTypeError;
// LocateJSON adds the line and column), and UnmarshalTOML lets
// github.com/BurntSushi/toml add the key and the line. For viper and koanf,
// DecodeHook gives mapstructure what it needs.
// A value that is not a string (a mapping, a list, a number, a boolean) is
// an error that says what it is, never a policy left unset.
//
// A policy that is missing from the file is not an error when the file is
// decoded; tag the field policy:"required" or policy:"default=POLICY" and
// call Check on the decoded configuration to settle it there, or give it
// its default where it is used, with Or.
//
// The zero Policy has a nil Schedule and stands for "not set": it prints
// and marshals as the empty string, and the empty string unmarshals to it,
// so a config without the field round-trips. A program gives it its own
// meaning, usually a default schedule. Text that is not empty must parse:
// blank text or a lone comment is an error, as in Parse.
//
// A Policy is not a schedule.Schedule: hand p.Schedule to code that wants
// one, such as retry.Retry. Passing p itself does not compile.
type Policy struct {
	// Schedule is the parsed schedule, or nil when the policy is not set.
	Schedule schedule.Schedule
}

var (
	_ encoding.TextMarshaler   = Policy{}
	_ encoding.TextAppender    = Policy{}
	_ encoding.TextUnmarshaler = (*Policy)(nil)
	_ flag.Value               = (*Policy)(nil)
)

// String returns the canonical form of the schedule, or "" for the zero
// Policy.
func (p Policy) String() string {
	if p.Schedule == nil {
		return ""
	}
	return p.Schedule.String()
}

// AppendText appends the canonical form of the schedule to b; it appends
// nothing for the zero Policy. It never fails.
func (p Policy) AppendText(b []byte) ([]byte, error) {
	if p.Schedule == nil {
		return b, nil
	}
	return schedule.AppendText(b, p.Schedule), nil
}

// MarshalText returns the canonical form of the schedule, or empty text for
// the zero Policy. It never fails.
func (p Policy) MarshalText() ([]byte, error) { return p.AppendText(nil) }

// UnmarshalText parses text into p. Empty text sets the zero Policy. On
// error, p is unchanged and the error is an *Error.
func (p *Policy) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*p = Policy{}
		return nil
	}
	s, err := Parse(string(text))
	if err != nil {
		return err
	}
	p.Schedule = s
	return nil
}

// Set parses s into p, for flag.Var. Like UnmarshalText, it accepts "" as
// the zero Policy.
func (p *Policy) Set(s string) error { return p.UnmarshalText([]byte(s)) }

// Or returns p's schedule, or def when p is not set: the place to give a
// policy its default where it is used. To give it one when the
// configuration is loaded, or to require it there, see Check.
func (p Policy) Or(def schedule.Schedule) schedule.Schedule {
	if p.Schedule == nil {
		return def
	}
	return p.Schedule
}
