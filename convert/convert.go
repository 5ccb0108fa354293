package convert

import (
	"errors"
	"fmt"
	"iter"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/recur-go/recur/internal/protodur"
	"github.com/recur-go/recur/internal/yamlguard"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
	"go.yaml.in/yaml/v3"
)

// Format names a retry configuration format.
type Format string

// The formats Read reads and Write writes.
const (
	Recur        Format = "recur"        // recur's policy language, as parse.Parse reads it
	Temporal     Format = "temporal"     // Temporal's RetryPolicy, in protobuf JSON
	Resilience4j Format = "resilience4j" // Resilience4j's Spring Boot YAML, resilience4j.retry
	Envoy        Format = "envoy"        // Envoy's route RetryPolicy, in JSON or YAML
	Polly        Format = "polly"        // Polly v8's RetryStrategyOptions, as appsettings.json binds it
	GRPC         Format = "grpc"         // a gRPC service config, or one retryPolicy of it
)

// Formats lists the formats, in the order the documentation gives them.
var Formats = []Format{Recur, Temporal, Resilience4j, Envoy, Polly, GRPC}

// Limits on input. A document longer than MaxInput bytes, or nested more
// than MaxDepth levels, is refused before its fields are read; the YAML
// decoder also refuses a document of more than yamlguard's 100,000 values
// and aliases that expand past that.
const (
	MaxInput = 1 << 20
	MaxDepth = 32
)

// compareLimit bounds how many waits a conversion compares between recur
// and the peer's own arithmetic, for a policy with no limit on its
// attempts whose waits have not yet reached their cap.
const compareLimit = 100_000

// Result is one retry policy of a foreign configuration, converted.
type Result struct {
	// Name tells which policy of the document this is, for a format that
	// holds several: "instances.backendA" (Resilience4j), "methodConfig[0]
	// /echo.Echo/*" (gRPC). It is empty for a format that holds one.
	Name string
	// Schedule makes the attempts the policy makes, at the delays it
	// waits, but for what Notes says.
	Schedule schedule.Schedule
	// Notes says, a sentence each, where the schedule is not the policy
	// to the letter and by how much: a wait the peer rounds differently,
	// a jitter it draws in whole milliseconds. It is empty when the
	// schedule waits exactly as the peer does.
	Notes []string
	// Retained holds the fields that say something other than when to
	// retry (which errors, how long one attempt may take), with their
	// values: they have no place in a schedule, and each says where recur
	// takes it instead.
	Retained []Field
}

// Field is a field of a foreign configuration that is not part of a
// schedule.
type Field struct {
	// Path is the field's place in the document, such as
	// "nonRetryableErrorTypes".
	Path string `json:"path"`
	// Value is the value as the document writes it: a string, a number,
	// or a list in JSON form.
	Value string `json:"value"`
	// Use says where recur takes this: "a worth function that returns
	// false for these error types", "retry.Options.AttemptTimeout".
	Use string `json:"use"`
}

// ErrNoEquivalent is what errors.Is finds in the error for a field, or a
// schedule, that the other side cannot say exactly.
var ErrNoEquivalent = errors.New("no equivalent")

// FieldError is a problem with one field of a document. Path is the
// field's place in it, such as "retry_back_off.base_interval"; Line and
// Column are its position, 0 when unknown.
type FieldError struct {
	Format       Format
	Path         string
	Line, Column int
	Msg          string
	// Err is ErrNoEquivalent for a value that is valid in its format but
	// that recur cannot say exactly, nil for an invalid one.
	Err error
}

// Error returns "convert: FORMAT: line L: PATH: MSG".
func (e *FieldError) Error() string {
	var b strings.Builder
	b.WriteString("convert: " + string(e.Format) + ": ")
	if e.Line > 0 {
		b.WriteString("line " + strconv.Itoa(e.Line) + ": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns Err.
func (e *FieldError) Unwrap() error { return e.Err }

// Read converts a document of format f into its retry policies: one for
// Temporal, Envoy and Polly, one per instance and shared config for
// Resilience4j, one per method config for gRPC. Recur reads one policy
// in recur's language.
func Read(f Format, data []byte) ([]Result, error) {
	one := func(r Result, err error) ([]Result, error) {
		if err != nil {
			return nil, err
		}
		return []Result{r}, nil
	}
	switch f {
	case Recur:
		return one(FromRecur(data))
	case Temporal:
		return one(FromTemporal(data))
	case Resilience4j:
		return FromResilience4j(data)
	case Envoy:
		return one(FromEnvoy(data))
	case Polly:
		return one(FromPolly(data))
	case GRPC:
		return FromGRPC(data)
	}
	return nil, fmt.Errorf("convert: unknown format %q; want one of %s", f, formatList())
}

// Write writes s in format f, or returns an error wrapping ErrNoEquivalent
// that says which part of s the format cannot say exactly.
func Write(f Format, s schedule.Schedule) ([]byte, error) {
	switch f {
	case Recur:
		return ToRecur(s)
	case Temporal:
		return ToTemporal(s)
	case Resilience4j:
		return ToResilience4j(s)
	case Envoy:
		return ToEnvoy(s)
	case Polly:
		return ToPolly(s)
	case GRPC:
		return ToGRPC(s)
	}
	return nil, fmt.Errorf("convert: unknown format %q; want one of %s", f, formatList())
}

func formatList() string {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// noEquivalent is the error of a To function for a schedule the format
// cannot say.
func noEquivalent(f Format, s schedule.Schedule, why string) error {
	return fmt.Errorf("convert: %s: %v: %w: %s", f, s, ErrNoEquivalent, why)
}

// ---- reading documents ----

// doc is a decoded document, read field by field.
type doc struct {
	format Format
	// fold makes keys match whatever their case, as .NET's configuration
	// binder does; norm maps a key to the name it is matched by.
	norm func(string) string
}

// decode parses data, JSON or YAML, into a node tree, within the limits.
func (d doc) decode(data []byte) (*yaml.Node, error) {
	if len(data) > MaxInput {
		return nil, d.errorf(nil, "", "the document is %d bytes, more than the limit of %d (1 MiB)", len(data), MaxInput)
	}
	root, err := yamlguard.Decode(data)
	if err != nil {
		return nil, &FieldError{Format: d.format, Msg: err.Error()}
	}
	if root == nil {
		return nil, d.errorf(nil, "", "the document is empty")
	}
	if depth(root, 0) > MaxDepth {
		return nil, d.errorf(nil, "", "the document nests more than %d levels", MaxDepth)
	}
	return root, nil
}

// depth returns how deep n nests, stopping past MaxDepth. Aliases are
// not followed: their target is counted where it stands.
func depth(n *yaml.Node, at int) int {
	if at > MaxDepth {
		return at
	}
	most := at
	for _, c := range n.Content {
		most = max(most, depth(c, at+1))
		if most > MaxDepth {
			break
		}
	}
	return most
}

func (d doc) errorf(n *yaml.Node, path, format string, args ...any) *FieldError {
	e := &FieldError{Format: d.format, Path: path, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	return e
}

func (d doc) refuse(n *yaml.Node, path, format string, args ...any) *FieldError {
	e := d.errorf(n, path, format, args...)
	e.Err = ErrNoEquivalent
	return e
}

// resolve follows an alias.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// entry is one key of a mapping.
type entry struct {
	key   string // as written
	keyN  *yaml.Node
	value *yaml.Node
}

// mapping returns the entries of a mapping node, refusing another kind
// of node and a key given twice (after normalisation).
func (d doc) mapping(n *yaml.Node, path string) ([]entry, error) {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		return nil, d.errorf(n, path, "want an object (a mapping); got %s", describe(n))
	}
	var out []entry
	seen := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, d.errorf(k, path, "a key is %s, not a name", describe(k))
		}
		if k.Tag == "!!merge" {
			return nil, d.errorf(k, path, "YAML merge keys (<<) are not read; write the fields out")
		}
		norm := d.norm(k.Value)
		if prev, dup := seen[norm]; dup {
			return nil, d.errorf(k, join(path, k.Value), "is given twice (also as %q)", prev)
		}
		seen[norm] = k.Value
		out = append(out, entry{k.Value, k, resolve(v)})
	}
	return out, nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// describe names a node's kind for messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "an object"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return "null"
		case "!!str":
			return "the string " + quote(n.Value)
		case "!!bool":
			return "the boolean " + n.Value
		}
		return "the number " + n.Value
	}
	return "a value"
}

// quote quotes at most 40 characters of s.
func quote(s string) string {
	if r := []rune(s); len(r) > 40 {
		s = string(r[:40]) + "…"
	}
	return strconv.Quote(s)
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// str reads a string (a YAML scalar of any tag, since YAML writes
// "5xx" and 5xx alike).
func (d doc) str(n *yaml.Node, path string) (string, error) {
	if n.Kind != yaml.ScalarNode || isNull(n) {
		return "", d.errorf(n, path, "want a string; got %s", describe(n))
	}
	return n.Value, nil
}

// strictStr reads a JSON string: a quoted scalar.
func (d doc) strictStr(n *yaml.Node, path, example string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		return "", d.errorf(n, path, "want a string such as %s; got %s", example, describe(n))
	}
	return n.Value, nil
}

// integer reads a whole number in [lo, hi]: a number, or a string that
// holds one (protobuf JSON writes 64-bit integers as strings).
func (d doc) integer(n *yaml.Node, path string, lo, hi int64) (int64, error) {
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!str" && n.Tag != "!!float") {
		return 0, d.errorf(n, path, "want a whole number; got %s", describe(n))
	}
	v, err := strconv.ParseInt(strings.TrimSpace(n.Value), 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(strings.TrimSpace(n.Value), 64)
		if ferr != nil || f != math.Trunc(f) || math.IsInf(f, 0) {
			return 0, d.errorf(n, path, "want a whole number; got %s", describe(n))
		}
		if f < float64(lo) || f > float64(hi) {
			return 0, d.errorf(n, path, "must be from %d to %d; got %s", lo, hi, n.Value)
		}
		v = int64(f)
	}
	if v < lo || v > hi {
		return 0, d.errorf(n, path, "must be from %d to %d; got %s", lo, hi, n.Value)
	}
	return v, nil
}

// number reads a finite number: a number, or a string that holds one.
func (d doc) number(n *yaml.Node, path string) (float64, error) {
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!str" && n.Tag != "!!float") {
		return 0, d.errorf(n, path, "want a number; got %s", describe(n))
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(n.Value), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, d.errorf(n, path, "want a finite number; got %s", describe(n))
	}
	return f, nil
}

// boolean reads true or false, in any case, as a boolean or a string.
func (d doc) boolean(n *yaml.Node, path string) (bool, error) {
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!bool" || n.Tag == "!!str") {
		switch strings.ToLower(strings.TrimSpace(n.Value)) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	return false, d.errorf(n, path, "want true or false; got %s", describe(n))
}

// list renders a scalar or a list of scalars as text for a Field: a
// scalar as written, a list in JSON form.
func (d doc) list(n *yaml.Node, path string) (string, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Value, nil
	case yaml.SequenceNode:
		items := make([]string, 0, len(n.Content))
		for i, c := range n.Content {
			c = resolve(c)
			if c.Kind != yaml.ScalarNode {
				return "", d.errorf(c, path+"["+strconv.Itoa(i)+"]", "want a name; got %s", describe(c))
			}
			items = append(items, strconv.Quote(c.Value))
		}
		return "[" + strings.Join(items, ", ") + "]", nil
	}
	return "", d.errorf(n, path, "want a list of names; got %s", describe(n))
}

// raw renders any node as compact text for a Field.
func raw(n *yaml.Node) string {
	n = resolve(n)
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!str" {
			return strconv.Quote(n.Value)
		}
		return n.Value
	case yaml.SequenceNode:
		parts := make([]string, len(n.Content))
		for i, c := range n.Content {
			parts[i] = raw(c)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case yaml.MappingNode:
		var parts []string
		for i := 0; i+1 < len(n.Content); i += 2 {
			parts = append(parts, strconv.Quote(resolve(n.Content[i]).Value)+": "+raw(n.Content[i+1]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return ""
}

// ---- durations ----

// parseProtoDuration reads a protobuf JSON Duration: decimal seconds with
// an "s" suffix and at most nine fractional digits ("0.025s", "1.5s",
// "-2s"). Protobuf allows up to 315,576,000,000 seconds; a duration past
// what a time.Duration holds saturates, as durationpb's AsDuration does.
func parseProtoDuration(s string) (time.Duration, error) {
	num, ok := strings.CutSuffix(s, "s")
	if !ok {
		return 0, errors.New("want seconds with an \"s\" suffix, such as \"0.025s\"")
	}
	neg := false
	if rest, ok := strings.CutPrefix(num, "-"); ok {
		neg, num = true, rest
	}
	whole, frac, hasPoint := strings.Cut(num, ".")
	if whole == "" || !protodur.Digits(whole) || !protodur.Digits(frac) || hasPoint && frac == "" {
		return 0, errors.New("want decimal seconds, such as \"0.025s\"")
	}
	if len(frac) > 9 {
		return 0, errors.New("has more than 9 digits after the point")
	}
	d, ok := protodur.Parts(neg, whole, frac)
	if !ok {
		return 0, errors.New("is out of protobuf's range (±315576000000s)")
	}
	return d, nil
}

// protoDuration reads a field holding a protobuf JSON Duration.
func (d doc) protoDuration(n *yaml.Node, path string) (time.Duration, error) {
	s, err := d.strictStr(n, path, `"1.5s"`)
	if err != nil {
		return 0, err
	}
	v, perr := parseProtoDuration(s)
	if perr != nil {
		return 0, d.errorf(n, path, "duration %s: %v", quote(s), perr)
	}
	return v, nil
}

// ---- recur's side ----

// factor returns m as an Exponential's factor (whole percent and
// ten-thousandths of one), refusing m unless it is a whole millionth
// from 1 to 1,000,000.
func factor(m float64) (pct, frac int, ok bool) {
	if !(m >= 1) || m > 1e6 {
		return 0, 0, false
	}
	ppm := math.Round(m * 1e6)
	if math.Abs(m*1e6-ppm) > 1e-7*ppm { // not a whole millionth
		return 0, 0, false
	}
	n := int64(ppm)
	return int(n / schedule.PctFracs), int(n % schedule.PctFracs), true
}

// factorFloat is an Exponential's factor as a float64: FactorPPM/1e6,
// the nearest double to it.
func factorFloat(e schedule.Exponential) float64 { return float64(e.FactorPPM()) / 1e6 }

// formatFactor writes an Exponential's factor as the shortest decimal
// that reads back to it: 2, 1.5, 1.0001.
func formatFactor(e schedule.Exponential) string {
	return strconv.FormatFloat(factorFloat(e), 'g', -1, 64)
}

// delays returns the delays of a schedule without randomness, for
// comparing with a peer's.
func delays(s schedule.Schedule) iter.Seq[time.Duration] { return interp.Delays(s, 0) }

// mismatch compares, wait by wait, the delays of a recur schedule with
// those a peer computes (peer(k) for the k-th retry, from 1), over at most
// retries waits, stopping early once both have reached the same steady
// value for good (cap is the value after which neither changes; 0 when
// unknown). It returns the first retry that differs and the largest
// difference, in absolute value, or k == 0 when they agree.
func mismatch(s schedule.Schedule, peer func(k int) time.Duration, retries int, capAt time.Duration) (first int, firstRecur, firstPeer, most time.Duration, compared int) {
	k := 0
	for d := range delays(s) {
		k++
		if k > retries || k > compareLimit {
			break
		}
		compared = k
		p := peer(k)
		if diff := absDur(d - p); diff != 0 {
			if first == 0 {
				first, firstRecur, firstPeer = k, d, p
			}
			most = max(most, diff)
		}
		if capAt > 0 && d == capAt && p == capAt {
			break
		}
	}
	return
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// differNote words a mismatch for Result.Notes.
func differNote(peerName, why string, first int, recur, peer, most time.Duration) string {
	return fmt.Sprintf("the waits differ from %s's by up to %v, first at retry %d (%v here, %v in %s): %s",
		peerName, most, first, recur, peer, peerName, why)
}

// times returns the attempt limit of s when s is inner & times(n), in
// either order, or inner itself with n = 0 when s has no such limit.
func splitTimes(s schedule.Schedule) (inner schedule.Schedule, n int) {
	if v, ok := s.(schedule.Times); ok {
		return schedule.Forever{}, v.N
	}
	if v, ok := s.(schedule.Intersect); ok {
		if t, ok := v.B.(schedule.Times); ok {
			if _, nested := v.A.(schedule.Times); !nested {
				return v.A, t.N
			}
		}
		if t, ok := v.A.(schedule.Times); ok {
			return v.B, t.N
		}
	}
	return s, 0
}

// whole reports whether d is a whole multiple of unit.
func whole(d, unit time.Duration) bool { return d%unit == 0 }
