package parse

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// LocateJSON returns err, an error from decoding doc with encoding/json,
// placed in doc when it is about a Policy: a *ConfigError with the line and
// column of the offending spot, the key path and, for a string that does
// not parse, the *Error behind it, which errors.As then finds again. Any
// other error, or one whose value it cannot find, is returned as it is.
// For example,
//
//	json: line 4, column 16, at clients.billing.retry: Times: n 0 is below 1
//
// encoding/json reports a Policy's error as a *json.UnmarshalTypeError with
// the struct field path but not the value's place: it does not tell an
// Unmarshaler where its value starts. LocateJSON reads doc again to find
// it: the first value, in the order of the document, under a key equal to
// the field's name (without regard to case, as encoding/json matches
// names), or an element of an array there, that fails as a Policy with the
// very error reported; failing that, such a value under any key (a Policy
// in a map). encoding/json stops at the first Policy that fails, so that is
// the one, unless a field of another type holds the same wrong value
// earlier. It costs one more pass over doc, on the error path only.
func LocateJSON(doc []byte, err error) error {
	var terr *json.UnmarshalTypeError
	if !errors.As(err, &terr) || terr.Type != policyType {
		return err
	}
	if terr.Field == "" {
		start := valueStart(doc, 0)
		if cerr := jsonConfigError(doc, start, bytes.TrimSpace(doc[start:]), terr.Value); cerr != nil {
			return cerr
		}
	} else if cerr := findJSON(doc, terr.Field[strings.LastIndexByte(terr.Field, '.')+1:], terr.Value); cerr != nil {
		return cerr
	}
	if cerr := findJSON(doc, "", terr.Value); cerr != nil {
		return cerr
	}
	return err
}

// findJSON walks doc for the first value under a key equal to name (any
// key if name is ""), or an element of an array there, whose error as a
// Policy is the one described by value.
func findJSON(doc []byte, name, value string) *ConfigError {
	dec := json.NewDecoder(bytes.NewReader(doc))
	var (
		keys    []string // the keys of the open objects' current values
		inArray []bool   // for each open container: is it an array?
		wantKey bool     // the next token is a key
	)
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		if wantKey {
			key, _ := tok.(string)
			keys, wantKey = append(keys, key), false
			if name != "" && !strings.EqualFold(key, name) {
				continue
			}
			// Read the value whole only where it can be a Policy's,
			// or a scalar: containers elsewhere are walked into.
			if name == "" && !scalarNext(doc, int(dec.InputOffset())) {
				continue
			}
			vstart := valueStart(doc, int(dec.InputOffset()))
			var raw json.RawMessage
			if dec.Decode(&raw) != nil {
				return nil
			}
			if cerr := jsonCandidate(doc, vstart, raw, value); cerr != nil {
				cerr.Key = strings.Join(keys, ".")
				return cerr
			}
			keys, wantKey = keys[:len(keys)-1], dec.More()
			continue
		}
		switch tok {
		case json.Delim('{'):
			inArray, wantKey = append(inArray, false), dec.More()
			continue
		case json.Delim('['):
			inArray = append(inArray, true)
			continue
		case json.Delim('}'), json.Delim(']'):
			inArray = inArray[:len(inArray)-1]
		}
		// A value has ended: in an object, its key with it.
		if n := len(inArray); n > 0 && !inArray[n-1] {
			keys, wantKey = keys[:len(keys)-1], dec.More()
		}
	}
}

// scalarNext reports whether the value after offset off of doc is neither
// an object nor an array.
func scalarNext(doc []byte, off int) bool {
	off = valueStart(doc, off)
	return off < len(doc) && doc[off] != '{' && doc[off] != '['
}

// jsonCandidate returns raw, which starts at byte offset start of doc, as
// a *ConfigError if its error as a Policy is the one described by value,
// or the first of its elements that is, if raw is an array; nil if none is.
func jsonCandidate(doc []byte, start int, raw []byte, value string) *ConfigError {
	if cerr := jsonConfigError(doc, start, raw, value); cerr != nil || len(raw) == 0 || raw[0] != '[' {
		return cerr
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // [
		return nil
	}
	for dec.More() {
		at := valueStart(raw, int(dec.InputOffset()))
		var elem json.RawMessage
		if dec.Decode(&elem) != nil {
			return nil
		}
		if cerr := jsonConfigError(doc, start+at, elem, value); cerr != nil {
			return cerr
		}
	}
	return nil
}

// jsonConfigError returns raw, which starts at byte offset start of doc,
// as a *ConfigError placed in doc if its error as a Policy is the one
// described by value; nil otherwise.
func jsonConfigError(doc []byte, start int, raw []byte, value string) *ConfigError {
	_, bad := decodeJSON(raw)
	if bad.value == "" || bad.value != value {
		return nil
	}
	e := &ConfigError{Exact: true, Err: bad.err, format: "json"}
	off := start
	if bad.err == nil {
		e.Found = jsonFound(bytes.TrimSpace(raw))
	} else {
		off += bad.raw
	}
	e.Line, e.Column = position(string(doc[:off]), off)
	return e
}

// valueStart returns the offset of the first byte at or after off that is
// neither white space nor a ':' or ',' between tokens.
func valueStart(doc []byte, off int) int {
	for off < len(doc) {
		switch doc[off] {
		case ' ', '\t', '\n', '\r', ':', ',':
			off++
		default:
			return off
		}
	}
	return off
}
