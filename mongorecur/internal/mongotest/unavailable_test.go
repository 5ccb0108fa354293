package mongotest_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/recur-go/recur/mongorecur/internal/mongotest"
)

// recorder is a testing.TB that records Skipf and Fatalf instead of
// ending the test.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()                        {}
func (r *recorder) Skipf(format string, a ...any)  { r.skipped = fmt.Sprintf(format, a...) }
func (r *recorder) Fatalf(format string, a ...any) { r.failed = fmt.Sprintf(format, a...) }

// TestUnavailable: a server that cannot start skips the test with the
// reason, except under CI=true, where it fails.
func TestUnavailable(t *testing.T) {
	cause := errors.New("listen tcp 127.0.0.1:0: address already in use")
	for _, tt := range []struct {
		ci         string
		skip, fail bool
	}{
		{"", true, false},
		{"false", true, false},
		{"true", false, true},
	} {
		t.Setenv("CI", tt.ci)
		r := &recorder{TB: t}
		mongotest.Unavailable(r, cause)
		msg := r.skipped + r.failed
		if (r.skipped != "") != tt.skip || (r.failed != "") != tt.fail || !strings.Contains(msg, cause.Error()) {
			t.Errorf("CI=%q: skipped %q, failed %q; want skip=%v fail=%v, naming the cause", tt.ci, r.skipped, r.failed, tt.skip, tt.fail)
		}
	}
}
