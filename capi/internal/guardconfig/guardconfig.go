// Package guardconfig decodes the JSON config of a guard of recur's C ABI
// (recur_guard_new in recur.h): strictly, so that every mistake is an
// error that names its key.
package guardconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/capi/internal/suggest"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

// Config is a guard's JSON config, decoded and checked.
type Config struct {
	Name       string
	Retry      schedule.Schedule // nil: no retries
	Breaker    *breaker.Config   // nil: no breaker
	Budget     budget.Config     // nil: no budget
	BudgetKind string            // "token_bucket", "ratio" or "adaptive"
}

// The keys of a guard's config, of its breaker and of each kind of
// budget. The breaker's and the budgets' are those of a layer in
// schedcheck audit's plans (docs/audit.md), plus count_window.
var (
	topKeys     = []string{"name", "retry", "breaker", "budget"}
	breakerKeys = []string{"consecutive_failures", "failure_rate", "slow_call", "slow_rate", "min_calls", "count_window", "window", "open_for", "half_open_probes"}
	budgetKeys  = map[string][]string{
		"token_bucket": {"kind", "max_tokens", "token_ratio"},
		"ratio":        {"kind", "percent", "min_per_second", "window"},
		"adaptive":     {"kind", "k", "window"},
	}
	budgetKinds = []string{"token_bucket", "ratio", "adaptive"}
)

// goNames turns the Go field names in breaker's and budget's errors into
// the config's keys.
var goNames = strings.NewReplacer(
	"breaker: Config.ConsecutiveFailures", "breaker.consecutive_failures",
	"breaker: Config.FailureRate", "breaker.failure_rate",
	"breaker: Config.SlowCall", "breaker.slow_call",
	"breaker: Config.SlowRate", "breaker.slow_rate",
	"breaker: Config.MinCalls", "breaker.min_calls",
	"breaker: Config.CountWindow", "breaker.count_window",
	"breaker: Config.Window", "breaker.window",
	"breaker: Config.OpenFor", "breaker.open_for",
	"breaker: OpenFor", "breaker.open_for",
	"breaker: Config.HalfOpenProbes", "breaker.half_open_probes",
	"budget: TokenBucketConfig.MaxTokens", "budget.max_tokens",
	"budget: TokenBucketConfig.TokenRatio", "budget.token_ratio",
	"budget: RatioConfig.Percent", "budget.percent",
	"budget: RatioConfig.MinPerSecond", "budget.min_per_second",
	"budget: RatioConfig.Window", "budget.window",
	"budget: AdaptiveConfig.K", "budget.k",
	"budget: AdaptiveConfig.Window", "budget.window",
)

// configError is a config's mistake.
func configError(msg string) error { return errors.New(msg) }

// Translate turns the Go field names in an error of breaker.New or of a
// budget's New into the config's keys.
func Translate(err error) string { return goNames.Replace(err.Error()) }

// Decode decodes and checks a guard's JSON config. Every mistake is an
// error that names the key: an unknown or repeated key, a value of the
// wrong type, a value out of range.
func Decode(text string) (Config, error) {
	var c Config
	if f := checkKeys(text); f != nil {
		return c, f
	}
	top, f := object([]byte(text), "config")
	if f != nil {
		return c, f
	}
	if f := top.known(topKeys); f != nil {
		return c, f
	}
	if raw, ok := top.m["name"]; ok {
		if f := top.str("name", raw, &c.Name); f != nil {
			return c, f
		}
	}
	if raw, ok := top.m["retry"]; ok && !isNull(raw) {
		var src string
		if f := top.str("retry", raw, &src); f != nil {
			return c, f
		}
		s, f := policyAt("retry", src)
		if f != nil {
			return c, f
		}
		c.Retry = s
	}
	if raw, ok := top.m["breaker"]; ok && !isNull(raw) {
		bc, f := decodeBreaker(raw)
		if f != nil {
			return c, f
		}
		bc.Name = c.Name
		c.Breaker = &bc
	}
	raw, ok := top.m["budget"]
	switch {
	case !ok:
		c.Budget, c.BudgetKind = budget.DefaultConfig(), "token_bucket"
	case !isNull(raw):
		bc, kind, f := decodeBudget(raw)
		if f != nil {
			return c, f
		}
		c.Budget, c.BudgetKind = bc, kind
	}
	return c, nil
}

// decodeBreaker decodes the "breaker" object and checks it with
// breaker.New's rules.
func decodeBreaker(raw json.RawMessage) (breaker.Config, error) {
	var c breaker.Config
	o, f := object(raw, "breaker")
	if f != nil {
		return c, f
	}
	if f := o.known(breakerKeys); f != nil {
		return c, f
	}
	for _, k := range o.keys {
		v := o.m[k]
		switch k {
		case "consecutive_failures":
			f = o.int(k, v, &c.ConsecutiveFailures)
		case "failure_rate":
			f = o.int(k, v, &c.FailureRate)
		case "slow_call":
			f = o.duration(k, v, &c.SlowCall)
		case "slow_rate":
			f = o.int(k, v, &c.SlowRate)
		case "min_calls":
			f = o.int(k, v, &c.MinCalls)
		case "count_window":
			f = o.int(k, v, &c.CountWindow)
		case "window":
			f = o.duration(k, v, &c.Window)
		case "open_for":
			var src string
			if f = o.str(k, v, &src); f == nil {
				c.OpenFor, f = policyAt("breaker.open_for", src)
			}
		case "half_open_probes":
			f = o.int(k, v, &c.HalfOpenProbes)
		}
		if f != nil {
			return c, f
		}
	}
	if _, err := breaker.New(c); err != nil {
		return c, configError(Translate(err))
	}
	return c, nil
}

// decodeBudget decodes the "budget" object and checks it with the
// budget's own rules.
func decodeBudget(raw json.RawMessage) (budget.Config, string, error) {
	o, f := object(raw, "budget")
	if f != nil {
		return nil, "", f
	}
	kraw, ok := o.m["kind"]
	if !ok {
		return nil, "", configError(`budget.kind is required: "token_bucket", "ratio" or "adaptive"`)
	}
	var kind string
	if f := o.str("kind", kraw, &kind); f != nil {
		return nil, "", f
	}
	if !slices.Contains(budgetKinds, kind) {
		msg := "budget.kind " + strconv.Quote(kind) + ` is not "token_bucket", "ratio" or "adaptive"`
		if s := suggest.Closest(kind, budgetKinds); s != "" {
			msg += "; did you mean " + strconv.Quote(s) + "?"
		}
		return nil, "", configError(msg)
	}
	for _, k := range o.keys {
		if !slices.Contains(budgetKeys[kind], k) {
			for _, other := range budgetKinds {
				if slices.Contains(budgetKeys[other], k) {
					return nil, "", configError("budget." + k + " does not apply to kind " + strconv.Quote(kind))
				}
			}
		}
	}
	if f := o.known(budgetKeys[kind]); f != nil {
		return nil, "", f
	}
	var (
		tb = budget.TokenBucketConfig{}
		ra = budget.RatioConfig{}
		ad = budget.AdaptiveConfig{}
	)
	for _, k := range o.keys {
		v := o.m[k]
		switch k {
		case "max_tokens":
			f = o.int(k, v, &tb.MaxTokens)
		case "token_ratio":
			f = o.float(k, v, &tb.TokenRatio)
		case "percent":
			f = o.int(k, v, &ra.Percent)
		case "min_per_second":
			f = o.int(k, v, &ra.MinPerSecond)
		case "window":
			var d time.Duration
			f = o.duration(k, v, &d)
			ra.Window, ad.Window = d, d
		case "k":
			f = o.float(k, v, &ad.K)
		}
		if f != nil {
			return nil, "", f
		}
	}
	var c budget.Config
	switch kind {
	case "token_bucket":
		c = tb
	case "ratio":
		c = ra
	default:
		c = ad
	}
	if _, err := c.New(); err != nil {
		return nil, "", configError(Translate(err))
	}
	return c, kind, nil
}

// policyAt parses a policy found at key, and says where in it a mistake
// is.
func policyAt(key, src string) (schedule.Schedule, error) {
	s, err := parse.Parse(src)
	if err != nil {
		return nil, configError(key + ": " + ParseMessage(err))
	}
	return s, nil
}

// ParseMessage is a parse error's position and message, then the source
// line and a caret under the spot.
func ParseMessage(err error) string {
	var pe *parse.Error
	if errors.As(err, &pe) {
		return pe.Error() + "\n" + pe.Caret()
	}
	return err.Error()
}

// jsonObject is one JSON object of the config, its values undecoded.
type jsonObject struct {
	path string // its key path, "config" for the whole document
	m    map[string]json.RawMessage
	keys []string // in the order written
}

// object decodes raw as a JSON object.
func object(raw []byte, path string) (jsonObject, error) {
	o := jsonObject{path: path}
	if t := firstByte(raw); t != '{' {
		return o, configError(path + " is " + jsonKind(raw) + ", not an object")
	}
	if err := json.Unmarshal(raw, &o.m); err != nil {
		return o, configError(path + ": " + err.Error())
	}
	// The keys in document order, for messages that follow the text.
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.Token() // {
	for dec.More() {
		t, _ := dec.Token()
		o.keys = append(o.keys, t.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	return o, nil
}

// key is a key's full path.
func (o jsonObject) key(k string) string {
	if o.path == "config" {
		return k
	}
	return o.path + "." + k
}

// known returns an error for the first key not in keys.
func (o jsonObject) known(keys []string) error {
	for _, k := range o.keys {
		if !slices.Contains(keys, k) {
			msg := "unknown key " + strconv.Quote(o.key(k))
			if s := suggest.Closest(k, keys); s != "" {
				msg += "; did you mean " + strconv.Quote(s) + "?"
			}
			return configError(msg + " (keys: " + strings.Join(keys, ", ") + ")")
		}
	}
	return nil
}

// str decodes a string.
func (o jsonObject) str(k string, raw json.RawMessage, dst *string) error {
	if firstByte(raw) != '"' {
		return configError(o.key(k) + " is " + jsonKind(raw) + ", not a string")
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return configError(o.key(k) + ": " + err.Error())
	}
	return nil
}

// int decodes an integer that fits in 32 bits.
func (o jsonObject) int(k string, raw json.RawMessage, dst *int) error {
	n, err := strconv.ParseInt(string(raw), 10, 32)
	if err != nil {
		if firstByte(raw) == '-' || isDigit(firstByte(raw)) {
			return configError(o.key(k) + " is " + string(raw) + ", not an integer from -2147483648 to 2147483647")
		}
		return configError(o.key(k) + " is " + jsonKind(raw) + ", not an integer")
	}
	*dst = int(n)
	return nil
}

// float decodes a number.
func (o jsonObject) float(k string, raw json.RawMessage, dst *float64) error {
	c := firstByte(raw)
	if c != '-' && !isDigit(c) {
		return configError(o.key(k) + " is " + jsonKind(raw) + ", not a number")
	}
	v, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return configError(o.key(k) + " is " + string(raw) + ", out of range")
	}
	*dst = v
	return nil
}

// duration decodes a duration written as a string in Go's syntax.
func (o jsonObject) duration(k string, raw json.RawMessage, dst *time.Duration) error {
	var s string
	if firstByte(raw) != '"' {
		return configError(o.key(k) + " is " + jsonKind(raw) + `, not a duration string such as "250ms" or "10s"`)
	}
	if f := o.str(k, raw, &s); f != nil {
		return f
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return configError(o.key(k) + " is " + strconv.Quote(s) + `, not a duration such as "250ms" or "1m30s"`)
	}
	if d < 0 {
		return configError(o.key(k) + " is " + strconv.Quote(s) + ", a negative duration")
	}
	*dst = d
	return nil
}

// checkKeys walks the whole document: it must be one JSON value, with no
// key repeated in any object (encoding/json would keep the last one
// silently).
func checkKeys(text string) error {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	type frame struct {
		path   string
		object bool
		seen   map[string]bool
		key    string // the key whose value comes next, in an object
		index  int    // the next element's index, in an array
	}
	var stack []*frame
	path := func() string {
		if len(stack) == 0 {
			return "config"
		}
		f := stack[len(stack)-1]
		if f.object {
			if f.path == "" {
				return f.key
			}
			return f.path + "." + f.key
		}
		return f.path + "[" + strconv.Itoa(f.index) + "]"
	}
	// value is called after each complete value, to move its parent on.
	value := func() {
		if len(stack) > 0 {
			if f := stack[len(stack)-1]; f.object {
				f.key = ""
			} else {
				f.index++
			}
		}
	}
	for {
		t, err := dec.Token()
		if err == io.EOF {
			if len(stack) == 0 {
				break
			}
			return configError("config ends before its last object or array closes")
		}
		if err != nil {
			return configError("config is not valid JSON: " + strings.TrimPrefix(err.Error(), "json: "))
		}
		top := len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].key == ""
		switch t := t.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				p := path()
				if len(stack) == 0 {
					p = ""
				}
				stack = append(stack, &frame{path: p, object: t == '{', seen: map[string]bool{}})
			default:
				stack = stack[:len(stack)-1]
				value()
			}
		case string:
			if top {
				f := stack[len(stack)-1]
				f.key = t
				if f.seen[t] {
					return configError("key " + strconv.Quote(path()) + " is repeated")
				}
				f.seen[t] = true
				continue
			}
			value()
		default:
			value()
		}
		if len(stack) == 0 {
			// One value, and nothing after it.
			if _, err := dec.Token(); err != io.EOF {
				return configError("config has more after its object")
			}
			break
		}
	}
	return nil
}

func firstByte(raw []byte) byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// jsonKind names the kind of a JSON value, for messages.
func jsonKind(raw []byte) string {
	switch c := firstByte(raw); {
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '-' || isDigit(c):
		return "a number"
	}
	return "not JSON"
}
