package parse

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/recur-go/recur/schedule"
)

// ErrNotSet is the error of a Policy field that Check requires and finds
// not set; errors.Is finds it in Check's error.
var ErrNotSet = errors.New("no policy set, and one is required")

// errNoSet is the error of a default that Check cannot store.
var errNoSet = errors.New("cannot set the default: the policy is held by value in an interface; hold a pointer to it there")

// FieldError is what Check found wrong with one Policy field: not set
// though required (Err is ErrNotSet), or a policy tag that is not valid.
type FieldError struct {
	// Path is the field's place in the configuration as the file spells
	// it, its keys joined by ".": "clients.billing.retry",
	// "layers.2.retry". Each key is the name in the field's first json,
	// yaml, toml, mapstructure or koanf tag that gives one, or else the
	// Go field's name; a map key or a slice index is written as it is.
	Path string
	// Field is the Go struct field, such as "Client.Retry".
	Field string
	// Err is ErrNotSet, or what is wrong with the tag: for a default that
	// does not parse, the *Error, which errors.As finds.
	Err error
}

// Error returns the path and what is wrong, on one line, such as
//
//	clients.billing.retry: no policy set, and one is required (is the key spelled "retry" in the file?)
//	retry: field Config.Retry: policy tag "default=times(0)": 1:7: Times: n 0 is below 1
func (e *FieldError) Error() string {
	if e.Err == ErrNotSet {
		key := e.Path[strings.LastIndexByte(e.Path, '.')+1:]
		return e.Path + ": " + ErrNotSet.Error() + " (is the key spelled " + strconv.Quote(key) + " in the file?)"
	}
	return e.Path + ": field " + e.Field + ": " + e.Err.Error()
}

// Unwrap returns Err.
func (e *FieldError) Unwrap() error { return e.Err }

// Check settles the Policy fields of a decoded configuration that carry a
// policy tag, so that a policy that is missing, such as one under a
// misspelt key, fails when the configuration is loaded rather than at the
// first call that needs it. cfg is a pointer to the configuration; Check
// walks it through nested and embedded structs, pointers, slices, arrays,
// maps and interfaces, and for every field of type Policy or *Policy (or
// a slice, array, map or pointer of them) whose tag is
//
//	policy:"required"            the policy must be set
//	policy:"default=POLICY"      an unset policy is set to POLICY
//
// it reports an unset required policy and fills an unset one that has a
// default, such as
//
//	Retry parse.Policy `yaml:"retry" policy:"default=fulljitter(100ms, 2s) & times(3)"`
//
// A policy counts as unset when its Schedule is nil: the key is absent,
// null or the empty string. A default that does not parse, a tag that is
// neither form, and a policy tag on a field that holds no Policy are
// errors even when the field is set, so that a mistake in the program is
// found at the first load. A nil pointer to a struct is a section the
// file leaves out: Check does not enter it. Unexported fields are left
// alone, except embedded structs, whose fields decoders promote.
//
// Check returns nil, or every problem at once: an errors.Join of
// *FieldError, in the order of the struct's fields (map keys sorted),
// one per line. errors.Is(err, ErrNotSet) reports a missing policy.
func Check(cfg any) error {
	v := reflect.ValueOf(cfg)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return fmt.Errorf("parse.Check: want a non-nil pointer to the configuration, got %T", cfg)
	}
	c := checker{seen: map[any]bool{}}
	c.walk(v, nil, policyTag{})
	return errors.Join(c.errs...)
}

// policyTag is a parsed policy tag.
type policyTag struct {
	field    string // the Go field, "Client.Retry"; "" when there is no tag
	required bool
	def      schedule.Schedule // the default, or nil
}

// parseTag reads the value of a policy tag.
func parseTag(tag string) (required bool, def schedule.Schedule, err error) {
	opt := strings.TrimSpace(tag)
	switch {
	case opt == "required":
		return true, nil, nil
	case strings.HasPrefix(opt, "default="):
		text := opt[len("default="):]
		if strings.TrimSpace(text) == "" {
			return false, nil, fmt.Errorf("policy tag %s: the default is empty", strconv.Quote(clip(tag)))
		}
		s, err := Parse(text)
		if err != nil {
			return false, nil, fmt.Errorf("policy tag %s: %w", strconv.Quote(clip(tag)), err)
		}
		return false, s, nil
	}
	return false, nil, fmt.Errorf(`policy tag %s: want "required" or "default=POLICY"`, strconv.Quote(clip(tag)))
}

// checker walks a configuration for Check.
type checker struct {
	errs []error
	seen map[any]bool // the pointers entered, against cycles
}

// fail records a problem at path.
func (c *checker) fail(path []string, field string, err error) {
	c.errs = append(c.errs, &FieldError{Path: strings.Join(path, "."), Field: field, Err: err})
}

// walk checks v, at path, under tag: the tag of the field that holds v,
// which applies to the Policy values v is or holds, not to the fields of
// a struct inside it. It reports whether it set anything, so that a map's
// value, walked as a copy, is stored back.
func (c *checker) walk(v reflect.Value, path []string, tag policyTag) (changed bool) {
	t := v.Type()
	if t.Kind() == reflect.Struct && t != policyType {
		return c.walkStruct(v, path) // an embedded struct may be unexported
	}
	if !v.CanInterface() {
		return false // reached through an unexported field
	}
	if t == policyType {
		if v.Field(0).IsNil() {
			switch {
			case tag.def != nil && v.CanSet():
				v.Set(reflect.ValueOf(Policy{Schedule: tag.def}))
				return true
			case tag.def != nil:
				c.fail(path, tag.field, errNoSet)
			case tag.required:
				c.fail(path, tag.field, ErrNotSet)
			}
		}
		return false
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			if t.Elem() != policyType {
				return false // a section the file leaves out
			}
			switch {
			case tag.def != nil && v.CanSet():
				v.Set(reflect.ValueOf(&Policy{Schedule: tag.def}))
				return true
			case tag.def != nil:
				c.fail(path, tag.field, errNoSet)
			case tag.required:
				c.fail(path, tag.field, ErrNotSet)
			}
			return false
		}
		key := [2]any{v.Pointer(), t}
		if c.seen[key] {
			return false
		}
		c.seen[key] = true
		c.walk(v.Elem(), path, tag)
		return false // the pointer itself is unchanged
	case reflect.Interface:
		if v.IsNil() {
			return false
		}
		c.walk(v.Elem(), path, tag) // a value in an interface cannot be set
		return false
	case reflect.Slice, reflect.Array:
		if !holdsPolicy(t) {
			return false
		}
		for i := range v.Len() {
			changed = c.walk(v.Index(i), append(path, strconv.Itoa(i)), tag) || changed
		}
		return changed
	case reflect.Map:
		if !holdsPolicy(t) {
			return false
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return cmp.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		for _, k := range keys {
			elem := reflect.New(t.Elem()).Elem()
			elem.Set(v.MapIndex(k))
			if c.walk(elem, append(path, fmt.Sprint(k)), tag) {
				v.SetMapIndex(k, elem)
			}
		}
	}
	return false
}

// walkStruct checks the fields of struct v, at path.
func (c *checker) walkStruct(v reflect.Value, path []string) (changed bool) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() && !(f.Anonymous && derefType(f.Type).Kind() == reflect.Struct) {
			continue
		}
		var tag policyTag
		if raw, ok := f.Tag.Lookup("policy"); ok {
			tag.field = f.Name
			if t.Name() != "" {
				tag.field = t.Name() + "." + f.Name
			}
			at := append(path, configName(f))
			if !reachesPolicy(f.Type) {
				c.fail(at, tag.field, fmt.Errorf("policy tag %s on a field of type %s, which holds no parse.Policy", strconv.Quote(clip(raw)), f.Type))
				continue
			}
			var err error
			if tag.required, tag.def, err = parseTag(raw); err != nil {
				c.fail(at, tag.field, err)
				continue
			}
		}
		p := path
		if !inline(f) {
			p = append(path, configName(f))
		}
		changed = c.walk(v.Field(i), p[:len(p):len(p)], tag) || changed
	}
	return changed
}

// nameTags are the tags whose first part names a field in a configuration
// file, in the order Check reads them.
var nameTags = []string{"json", "yaml", "toml", "mapstructure", "koanf"}

// configName is the key of field f in a configuration file.
func configName(f reflect.StructField) string {
	for _, k := range nameTags {
		name, _, _ := strings.Cut(f.Tag.Get(k), ",")
		if name != "" && name != "-" {
			return name
		}
	}
	return f.Name
}

// inline reports whether f's fields are read as the fields of the struct
// that holds it: an embedded struct without a name, or one marked inline
// (yaml) or squash (mapstructure).
func inline(f reflect.StructField) bool {
	for _, k := range nameTags {
		name, opts, _ := strings.Cut(f.Tag.Get(k), ",")
		for _, o := range strings.Split(opts, ",") {
			if o == "inline" || o == "squash" {
				return true
			}
		}
		if name != "" && name != "-" {
			return false
		}
	}
	return f.Anonymous && derefType(f.Type).Kind() == reflect.Struct
}

// derefType strips t's pointers.
func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// reachesPolicy reports whether t is Policy or a pointer, slice, array or
// map of it, at any depth: a type a policy tag applies to.
func reachesPolicy(t reflect.Type) bool {
	for {
		if t == policyType {
			return true
		}
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			t = t.Elem()
		default:
			return false
		}
	}
}

// holdsPolicy reports whether a value of type t can hold a Policy, so
// that walking it is worth the time.
func holdsPolicy(t reflect.Type) bool {
	return typeHolds(t, map[reflect.Type]bool{})
}

func typeHolds(t reflect.Type, seen map[reflect.Type]bool) bool {
	if t == policyType || t.Kind() == reflect.Interface {
		return true
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return typeHolds(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if typeHolds(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}
