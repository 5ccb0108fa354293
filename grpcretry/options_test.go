package grpcretry_test

import (
	"reflect"
	"testing"

	"github.com/recur-go/recur/grpcretry"
)

// TestOptionsCarryNoGuard: the breaker and the budget are per target, in
// Config; Options has no field for them, so none can be set and ignored.
func TestOptionsCarryNoGuard(t *testing.T) {
	typ := reflect.TypeOf(grpcretry.Options{})
	for _, name := range []string{"Breaker", "Budget"} {
		if _, ok := typ.FieldByName(name); ok {
			t.Errorf("grpcretry.Options has a %s field", name)
		}
	}
}
