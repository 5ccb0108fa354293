package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestRun(t *testing.T) {
	defer goleak.VerifyNone(t)
	var out strings.Builder
	if err := run(&out); err != nil {
		t.Fatal(err)
	}
	want := `-- nobody listening, not marked; a subscriber arrives during the third wait
client: attempt 1: no-responders; retrying
client: attempt 2: no-responders; retrying
client: attempt 3: no-responders; retrying
client: "hello ann"
-- the first request times out, not marked: sent once
client: timeout
-- the first request times out, marked WithIdempotent: sent again
client: attempt 1: timeout; retrying
client: "found bob"
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got)\n%s", diff)
	}
}
