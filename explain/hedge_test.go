package explain_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/explain"
	"github.com/recur-go/recur/parse"
)

func TestHedge(t *testing.T) {
	for _, tt := range []struct{ policy, want string }{
		{"spaced(50ms) & times(3)", "hedged: a second copy at 50ms if no copy has answered by then, a third at 100ms; at most 3 copies in flight"},
		{"times(1)", "hedged: one copy only, so it never hedges"},
		{"fulljitter(20ms, 200ms) & times(3)", "hedged: a second copy between 0s and 20ms if no copy has answered by then, a third between 0s and 60ms; at most 3 copies in flight"},
		{"exponential(10ms, 200%, 1s) & times(7)", "hedged: a second copy at 10ms if no copy has answered by then, a third at 30ms, a fourth at 70ms, a fifth at 150ms, and so on to copy 7 at 630ms; at most 7 copies in flight (gRFC A6 allows 5)"},
		{"spaced(10ms)", "hedged: a second copy at 10ms if no copy has answered by then, a third at 20ms, a fourth at 30ms, a fifth at 40ms, and so on to copy 100 at 990ms; at most 100 copies in flight (retry.MaxCopies: the policy itself sets no lower bound)"},
		{"times(2)", "hedged: a second copy at 0s if no copy has answered by then; at most 2 copies in flight; every call sends two copies at once, doubling the load"},
	} {
		got := explain.Hedge(parse.MustParse(tt.policy)).Explanation
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.policy, diff)
		}
	}
}

func ExampleHedge() {
	e := explain.Hedge(parse.MustParse("spaced(50ms) & times(3)"))
	fmt.Println(e.Explanation)
	// Output:
	// hedged: a second copy at 50ms if no copy has answered by then, a third at 100ms; at most 3 copies in flight
}
