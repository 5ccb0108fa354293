package parse

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

var _ json.Unmarshaler = (*Policy)(nil)

// policyType is the type that JSON errors name.
var policyType = reflect.TypeFor[Policy]()

// UnmarshalJSON reads a policy from a JSON string, for encoding/json. A
// string that does not parse, and any value that is not a string (an
// object, an array, a number, a boolean), is a *json.UnmarshalTypeError:
// encoding/json fills in its Struct and Field, so the message names the
// key path, such as
//
//	json: cannot unmarshal "times(0)" (character 7 of the string: Times: n 0 is below 1) into Go struct field Client.clients.retry of type parse.Policy
//	json: cannot unmarshal an object (a policy is a string such as "backoff(100ms, 30s) & times(5)") into Go struct field Config.retry of type parse.Policy
//
// The character is counted in the string as written in the file, after
// the opening quote. encoding/json does not tell an Unmarshaler where its
// value starts, so the error's Offset is 0, and since
// json.UnmarshalTypeError wraps no error, errors.As does not find the
// *Error behind it: call Parse on the string for that.
//
// As with UnmarshalText, the empty string sets the zero Policy; null leaves
// p as it was, as encoding/json does for other types. On error, p is
// unchanged.
func (p *Policy) UnmarshalJSON(data []byte) error {
	q, bad := decodeJSON(data)
	if bad.value != "" {
		return &json.UnmarshalTypeError{Value: bad.value, Type: policyType}
	}
	if q != nil {
		*p = *q
	}
	return nil
}

// badJSON is what is wrong with a JSON value as a Policy.
type badJSON struct {
	value string // the description for json.UnmarshalTypeError.Value
	err   *Error // the parse error of a string
	raw   int    // the byte offset of err's spot in the literal as written
}

// decodeJSON reads data, one JSON value, as a Policy: it returns the
// policy, nil for null, or what is wrong.
func decodeJSON(data []byte) (*Policy, badJSON) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, badJSON{value: "no value (" + policyIs + ")"}
	}
	switch data[0] {
	case 'n':
		return nil, badJSON{}
	case '"':
	default:
		return nil, badJSON{value: jsonFound(data) + " (" + policyIs + ")"}
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, badJSON{value: "invalid JSON string " + clip(string(data))}
	}
	var p Policy
	var perr *Error
	if err := p.UnmarshalText([]byte(s)); !errors.As(err, &perr) {
		return &p, badJSON{} // err is nil: UnmarshalText returns only *Error
	}
	off := perr.Offset
	if strings.HasPrefix(s, bom) { // Parse skipped it
		off += len(bom)
	}
	raw := jsonRawOffset(data, off)
	var b strings.Builder
	b.WriteString(quote(s))
	b.WriteString(" (character ")
	b.WriteString(strconv.Itoa(utf8.RuneCount(data[1:raw]) + 1))
	b.WriteString(" of the string: ")
	perr.writeMsg(&b)
	b.WriteByte(')')
	return nil, badJSON{value: b.String(), err: perr, raw: raw}
}

// jsonFound says what a JSON value that is not a string or null is.
func jsonFound(data []byte) string {
	switch data[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "the boolean " + string(data)
	}
	return "the number " + clip(string(data))
}

// jsonRawOffset returns the byte offset in lit, a JSON string literal as
// written, quotes included, at which byte offset off of the decoded string
// starts.
func jsonRawOffset(lit []byte, off int) int {
	i, decoded := 1, 0
	for i < len(lit)-1 && decoded < off {
		if lit[i] != '\\' {
			i, decoded = i+1, decoded+1
			continue
		}
		if i+1 < len(lit) && lit[i+1] != 'u' {
			i, decoded = i+2, decoded+1
			continue
		}
		// \uXXXX, or a surrogate pair \uXXXX\uXXXX for one character.
		r := hex4(lit[min(i+2, len(lit)):])
		n := 6
		if 0xD800 <= r && r < 0xDC00 && i+12 <= len(lit) && lit[i+6] == '\\' && lit[i+7] == 'u' {
			r, n = 0x10000, 12
		}
		size := utf8.RuneLen(r)
		if size < 0 {
			size = len(string(utf8.RuneError)) // what a lone surrogate decodes to
		}
		i, decoded = i+n, decoded+size
	}
	return min(i, len(lit))
}

// hex4 reads the four hex digits at the start of b, or returns -1.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 32)
	if err != nil {
		return -1
	}
	return rune(n)
}
