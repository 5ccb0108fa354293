// Package parse reads and prints retry and repeat policies as text.
//
// A policy is written the way it is thought: back off from 100ms up to
// 30s, but give up after five attempts, is
//
//	backoff(100ms, 30s) & times(5)
//
// and Parse returns the schedule.Schedule it describes,
//
//	Intersect(Jittered(Exponential(100ms, 200%, 30s), 50%, 100%), Times(5))
//
// which is also its canonical form: String prints it, and Parse reads it
// back to an == value. Format prints the infix form for people instead.
//
// # The language
//
// A policy is built from calls, one per schedule variant, with arguments
// by position or by name, and from four operators:
//
//	a & b        Intersect: continue while both do, with the longer delay
//	a | b        Union: continue while either does, with the shorter delay
//	a then b     AndThen: a until it stops, then b (also written a >> b)
//	a upto 30s   UpTo: a, but no attempt starts later than 30s in
//
// & binds tighter than |, | tighter than then, and upto, which may only
// end a policy, binds loosest. Chains of & and | nest to the left, chains
// of then to the right; parentheses group. So
//
//	times(3) then spaced(1m) & times(10) | forever upto 1h
//
// is UpTo(AndThen(Times(3), Union(Intersect(Spaced(1m0s), Times(10)), Forever)), 1h0m0s).
//
// Names are matched without regard to case: Times, times and TIMES are the
// same. The names and their parameters are
//
//	Times(n)                        at most n attempts in all
//	Spaced(every)                   one attempt per slot of every
//	Exponential(base, factor, cap)  base, then ×factor% each time, at most cap
//	Fibonacci(base)                 base × 1, 1, 2, 3, 5, 8 …
//	Jittered(inner, low, high)      inner's delays × a random low%..high%
//	Union(a, b)                     a | b
//	Intersect(a, b)                 a & b
//	AndThen(first, then)            first then then
//	UpTo(inner, budget)             inner upto budget
//	Forever or Forever()            always again, at once
//	Capped(inner, max)              inner's delays, at most max
//	Decorrelated(base, cap)         AWS decorrelated jitter
//	backoff(base, cap)              Jittered(Exponential(base, 200%, cap), 50%, 100%)
//	fulljitter(base, cap)           Jittered(Exponential(base, 200%, cap), 0%, 100%)
//
// A named argument is written name=value or name: value; the Go field
// names (FactorPct, LowPct, HighPct …) are accepted too. Durations use Go's
// syntax (250ms, 1.5s, 1m30s, 10µs or 10us); a bare integer where a
// duration belongs means milliseconds, so backoff(100, 30000) is
// backoff(100ms, 30s). Percentages are written 200% or 200. White space
// and newlines are free, and # starts a comment that runs to the end of
// the line. docs/language.md has the whole grammar and a cookbook.
//
// # Errors
//
// Every error is an *Error with the line and column, the offending token
// and what was expected; its Caret method shows the spot:
//
//	1:11: unknown name "Exponental"; did you mean "Exponential"?
//	Intersect(Exponental(100ms, 200%, 30s), Times(5))
//	          ^
//
// A policy that parses is checked by schedule.Validate, and a value it
// rejects is reported at its place in the source, with the
// *schedule.Error available through errors.As. Input longer than MaxLen
// bytes or MaxTokens tokens, or nested deeper than MaxDepth, is rejected
// before it can cost much.
//
// # Configuration
//
// Policy wraps a schedule as a configuration value: it implements
// encoding.TextUnmarshaler, encoding.TextMarshaler and flag.Value, so a
// field of type Policy reads from JSON, YAML, TOML, the environment or a
// command-line flag without further code.
//
// Its errors say where in the file the mistake is. With go.yaml.in/yaml/v3
// they carry the line and column (a *ConfigError), and LocateYAML adds the
// key path. With encoding/json they carry the key path, and LocateJSON adds
// the line and column. For TOML,
// use github.com/BurntSushi/toml: Policy.UnmarshalTOML sees the decoded
// value, so a table or a number is an error that says so, and the decoder
// adds the key and the line. github.com/pelletier/go-toml/v2 reports the
// key and the value's line and column for a policy string, but hands a
// number to UnmarshalText as text, with no place, and decodes a table at a
// Policy field into Policy's own fields without an error.
//
// The parser is built with participle (github.com/alecthomas/participle)
// over a hand-written lexer; calls and their arguments are read by hand,
// through participle's Parseable interface.
package parse
