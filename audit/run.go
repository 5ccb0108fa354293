package audit

import (
	"cmp"
	"slices"
)

// Run audits the plan and returns the report. It never fails: a plan that
// Validate rejects gets one "invalid-plan" error finding per problem and
// no other findings.
func Run(p Plan) Report {
	type ranked struct {
		Finding
		fix         string
		layer, rule int // -1 for the whole plan
	}
	var rs []ranked
	if probs := p.problems(); len(probs) > 0 {
		for _, pr := range probs {
			rs = append(rs, ranked{Finding{ID: "invalid-plan", Severity: Error, Layer: pr.layer, Message: pr.msg},
				"correct the plan: docs/audit-plan.schema.json describes each field", -1, -1})
		}
	} else {
		ls := layerFacts(p)
		for ri, r := range Rules() {
			r.check(p, ls, func(l *facts, msg, fix string) {
				x := ranked{Finding{ID: r.ID, Severity: r.Severity, Message: msg}, fix, -1, ri}
				if l != nil {
					x.Layer, x.layer = l.Name, l.index
				}
				rs = append(rs, x)
			})
		}
	}
	slices.SortStableFunc(rs, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(b.Severity, a.Severity), cmp.Compare(a.layer, b.layer), cmp.Compare(a.rule, b.rule))
	})
	r := Report{Pass: true, Findings: []Finding{}, Recommendations: []string{}}
	for _, x := range rs {
		r.Findings = append(r.Findings, x.Finding)
		if x.Severity == Error {
			r.Pass = false
		}
		if !slices.Contains(r.Recommendations, x.fix) {
			r.Recommendations = append(r.Recommendations, x.fix)
		}
	}
	r.Score = score(r.Findings)
	return r
}
