package verdict_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/verdict"
)

func TestVerdict(t *testing.T) {
	type row struct {
		Name          string
		Retry, Failed bool
	}
	tests := []struct {
		v    verdict.Verdict
		want row
	}{
		{verdict.Success, row{"success", false, false}},
		{verdict.Transient, row{"transient", true, true}},
		{verdict.Retryable, row{"retryable", true, false}},
		{verdict.Failure, row{"failure", false, true}},
		{verdict.Neutral, row{"neutral", false, false}},
		{verdict.Verdict(9), row{"verdict(9)", false, false}},
	}
	for _, tt := range tests {
		got := row{tt.v.String(), tt.v.Retry(), tt.v.Failed()}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("verdict %d (-want +got):\n%s", uint8(tt.v), diff)
		}
	}
}

func ExampleVerdict() {
	for _, v := range []verdict.Verdict{verdict.Success, verdict.Transient, verdict.Retryable, verdict.Failure, verdict.Neutral} {
		fmt.Printf("%-9s retry=%-5v counts as failure=%v\n", v, v.Retry(), v.Failed())
	}
	// Output:
	// success   retry=false counts as failure=false
	// transient retry=true  counts as failure=true
	// retryable retry=true  counts as failure=false
	// failure   retry=false counts as failure=true
	// neutral   retry=false counts as failure=false
}
