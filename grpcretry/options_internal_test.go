package grpcretry

import (
	"testing"

	"github.com/recur-go/recur/internal/optcheck"
)

// TestRunnerCarriesEveryField: runner copies each field of Options to
// the retry.Options field of the same name, and sets no other.
func TestRunnerCarriesEveryField(t *testing.T) {
	var in Options
	optcheck.Fill(t, &in)
	optcheck.Carries(t, in, in.runner())
}
