package audit_test

import (
	"errors"
	"fmt"

	"github.com/recur-go/recur/audit"
)

// A misspelt key is a *KeyError that names the layer and suggests the
// known key nearest to it; a plan without layers is ErrNoLayers.
func ExampleDecode_errors() {
	_, err := audit.Decode([]byte(`
layers:
  - name: web
  - name: api
    propagates_deadlin: true
`))
	var ke *audit.KeyError
	if errors.As(err, &ke) {
		fmt.Println(err)
		fmt.Println(ke.Suggestion)
	}
	_, err = audit.Decode([]byte("name: checkout\nlayers: []\n"))
	fmt.Println(errors.Is(err, audit.ErrNoLayers))
	// Output:
	// 5:5: layer "api": unknown key "propagates_deadlin"; did you mean "propagates_deadline"?
	// propagates_deadline
	// true
}
