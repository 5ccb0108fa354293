package httpretry

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLabels: every status and kind of error maps to its documented label.
func TestLabels(t *testing.T) {
	got := map[string]string{}
	for _, code := range []int{200, 404, 408, 429, 500, 502, 503, 504} {
		got[fmt.Sprint(code)] = statusLabel(code).String()
	}
	for k := kindOther; k <= kindBroken; k++ {
		got[fmt.Sprint("kind ", k)] = errorLabel(k, errors.New("x")).String()
	}
	got["attempt timeout"] = errorLabel(kindBroken, fmt.Errorf("x: %w", ErrAttemptTimeout)).String()
	want := map[string]string{
		"200": "", "404": "", "408": "http-408", "429": "http-429", "500": "http-500",
		"502": "http-502", "503": "http-503", "504": "http-504",
		"kind 0": "error", "kind 1": "tls", "kind 2": "no-host", "kind 3": "dial",
		"kind 4": "refused-stream", "kind 5": "connection",
		"attempt timeout": "attempt-timeout",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
}
