package audit

import (
	"fmt"
	"strings"

	"github.com/recur-go/recur/lint"
)

// Severity says how bad a finding is; it is lint's, so audit and lint
// findings sort and print alike.
type Severity = lint.Severity

// Severities, least severe first.
const (
	Info    = lint.Info
	Warning = lint.Warning
	Error   = lint.Error
)

// Penalties: the score starts at 100 and loses this much per finding of
// each severity, down to 0.
const (
	ErrorPenalty   = 20
	WarningPenalty = 10
	InfoPenalty    = 5
)

// Finding is one problem with a plan.
type Finding struct {
	ID       string   `json:"id"`       // the rule, such as "retry-amplification"
	Severity Severity `json:"severity"` // error, warning or info
	Layer    string   `json:"layer"`    // the layer's name; empty for the whole plan
	Message  string   `json:"message"`  // what is wrong, with the figures
}

// Report is the result of an audit.
type Report struct {
	// Pass is false when any finding is an error.
	Pass bool `json:"pass"`
	// Score is 100 less the penalties of the findings, at least 0.
	Score int `json:"score"`
	// Findings are the problems, most severe first, then plan-wide ones
	// before each layer's in path order, then in rule order.
	Findings []Finding `json:"findings"`
	// Recommendations say how to fix the findings, one line each, in the
	// order of the findings and without repeats.
	Recommendations []string `json:"recommendations"`
}

// score returns the report's score for its findings.
func score(fs []Finding) int {
	s := 100
	for _, f := range fs {
		switch f.Severity {
		case Error:
			s -= ErrorPenalty
		case Warning:
			s -= WarningPenalty
		default:
			s -= InfoPenalty
		}
	}
	return max(s, 0)
}

// String returns the report as text: a verdict line, a line per finding,
// and the recommendations.
func (r Report) String() string {
	var b strings.Builder
	verdict := "PASS"
	if !r.Pass {
		verdict = "FAIL"
	}
	fmt.Fprintf(&b, "%s: score %d/100", verdict, r.Score)
	if len(r.Findings) == 0 {
		b.WriteString(", no findings\n")
		return b.String()
	}
	counts := map[Severity]int{}
	for _, f := range r.Findings {
		counts[f.Severity]++
	}
	var parts []string
	for _, s := range []Severity{Error, Warning, Info} {
		if n := counts[s]; n > 0 {
			parts = append(parts, plural(n, s.String()))
		}
	}
	fmt.Fprintf(&b, ", %s\n\n", strings.Join(parts, ", "))
	for _, f := range r.Findings {
		where := "plan"
		if f.Layer != "" {
			where = "layer " + f.Layer
		}
		fmt.Fprintf(&b, "%-7s %s (%s): %s\n", f.Severity, f.ID, where, f.Message)
	}
	if len(r.Recommendations) > 0 {
		b.WriteString("\nrecommendations:\n")
		for _, rec := range r.Recommendations {
			fmt.Fprintf(&b, "  - %s\n", rec)
		}
	}
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 || word == "info" {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
