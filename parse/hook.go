package parse

import (
	"errors"
	"fmt"
	"reflect"
)

// DecodeHook returns a decode hook that reads a Policy from a string, for
// github.com/go-viper/mapstructure/v2 and github.com/mitchellh/mapstructure,
// through which github.com/spf13/viper and github.com/knadh/koanf decode
// a configuration into a struct. Its type is mapstructure's
// DecodeHookFuncType spelled out, so that recur does not import
// mapstructure: pass it as it is, on its own or to
// mapstructure.ComposeDecodeHookFunc beside the hooks a program already
// uses:
//
//	v.Unmarshal(&cfg, viper.DecodeHook(mapstructure.ComposeDecodeHookFunc(
//		parse.DecodeHook(), mapstructure.StringToTimeDurationHookFunc())))
//
// Without it, mapstructure cannot put a string into a Policy, and decodes
// a mapping into Policy's own fields, leaving the policy unset without an
// error. With it, a string is parsed as by UnmarshalText (the empty string
// is the zero Policy), and any other value where a Policy belongs (a
// mapping, a list, a number, a boolean) is an error that says what was
// found. mapstructure adds the key, such as
//
//	decoding failed due to the following error(s):
//
//	'clients[billing].retry' found a mapping; a policy is a string such as "backoff(100ms, 30s) & times(5)"
//
// but no line: viper and koanf hand mapstructure the decoded values, not
// the file. A string that does not parse is its *Error, which errors.As
// finds through mapstructure's error.
//
// The hook leaves every value bound for another type alone, and a nil,
// a Policy or a *Policy too.
func DecodeHook() func(from, to reflect.Type, data any) (any, error) {
	return decodePolicy
}

// decodePolicy is the hook DecodeHook returns.
func decodePolicy(_, to reflect.Type, data any) (any, error) {
	if to != policyType {
		return data, nil
	}
	switch d := data.(type) {
	case nil, Policy, *Policy:
		return data, nil
	case string:
		var p Policy
		if err := p.UnmarshalText([]byte(d)); err != nil {
			return nil, err
		}
		return p, nil
	}
	found := valueFound(data)
	if found == notString {
		found = goFound(reflect.ValueOf(data))
	}
	return nil, errors.New(wrongType(found))
}

// goFound says what a decoded Go value that is not a string is.
func goFound(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Map, reflect.Struct:
		return "a mapping"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return "the number " + clip(fmt.Sprint(v.Interface()))
	case reflect.Bool:
		return fmt.Sprint("the boolean ", v.Bool())
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return goFound(v.Elem())
		}
	}
	return "a value of type " + v.Type().String()
}
