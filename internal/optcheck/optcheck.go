// Package optcheck checks, in the adapters' tests, that an adapter's own
// options type reaches the runner whole: each of its fields is copied to
// the retry.Options field of the same name, and nothing else is set.
package optcheck

import (
	"reflect"
	"testing"
)

// Carries fails t unless every field of the struct in is set (so that the
// check can see it), out has the same value in the field of the same name,
// and every other field of the struct out is zero. Functions are the same
// if they are the same code, also when an interface holds them.
func Carries(t testing.TB, in, out any) {
	t.Helper()
	iv, ov := reflect.ValueOf(in), reflect.ValueOf(out)
	set := map[string]bool{}
	for i := range iv.NumField() {
		name, f := iv.Type().Field(i).Name, iv.Field(i)
		if f.IsZero() {
			t.Fatalf("the test leaves %s.%s zero", iv.Type().Name(), name)
		}
		set[name] = true
		if !same(f, ov.FieldByName(name)) {
			t.Errorf("the runner's %s is %v, want %v", name, ov.FieldByName(name), f)
		}
	}
	for i := range ov.NumField() {
		if name := ov.Type().Field(i).Name; !set[name] && !ov.Field(i).IsZero() {
			t.Errorf("the runner sets %s, which %s does not have", name, iv.Type().Name())
		}
	}
}

// same reports whether a and b hold the same value. An interface is
// compared by the value it holds, so that an Observer made of a function
// (retry.ObserverFunc) is compared as that function.
func same(a, b reflect.Value) bool {
	if !b.IsValid() {
		return false
	}
	a, b = held(a), held(b)
	switch {
	case a.Kind() == reflect.Func && b.Kind() == reflect.Func:
		return a.Pointer() == b.Pointer()
	case !a.Comparable() || !b.Comparable():
		return a.Type() == b.Type() && reflect.DeepEqual(a.Interface(), b.Interface())
	}
	return a.Interface() == b.Interface()
}

// held returns the value an interface holds, or v itself.
func held(v reflect.Value) reflect.Value {
	for v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	return v
}
