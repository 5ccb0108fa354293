package parse

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
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
//	json: cannot unmarshal "times(0)" (character 7 of the string: Times: n 0 is below 1) into Go struct field Config.clients.retry of type parse.Policy
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
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return &json.UnmarshalTypeError{Value: wrongType("no value"), Type: policyType}
	}
	switch data[0] {
	case 'n':
		return nil
	case '"':
	default:
		return &json.UnmarshalTypeError{Value: wrongType(jsonFound(data)), Type: policyType}
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	var perr *Error
	if err := p.UnmarshalText([]byte(s)); !errors.As(err, &perr) {
		return err // nil: UnmarshalText returns only *Error
	}
	off := perr.Offset
	if len(s) >= len(bom) && s[:len(bom)] == bom { // Parse skipped it
		off += len(bom)
	}
	var b []byte
	b = append(b, quote(s)...)
	b = append(b, " (character "...)
	b = strconv.AppendInt(b, int64(jsonColumn(data, off)), 10)
	b = append(b, " of the string: "...)
	b = append(b, perr.Msg...)
	if perr.Expected != "" {
		b = append(b, "; expected "...)
		b = append(b, perr.Expected...)
	}
	b = append(b, ')')
	return &json.UnmarshalTypeError{Value: string(b), Type: policyType}
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

// jsonColumn returns the character, counted from 1 after the opening
// quote, at which the byte offset off of the decoded string starts in lit,
// the string literal as written.
func jsonColumn(lit []byte, off int) int {
	col, decoded := 1, 0
	for i := 1; i < len(lit)-1 && decoded < off; col++ {
		if lit[i] != '\\' {
			_, size := utf8.DecodeRune(lit[i:])
			i, decoded = i+size, decoded+size
			continue
		}
		if i+1 < len(lit) && lit[i+1] != 'u' {
			i, decoded = i+2, decoded+1
			col++ // the escape is two characters
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
		col += n - 1
	}
	return col
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
