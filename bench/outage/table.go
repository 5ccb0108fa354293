package outage

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Row is a scenario and what it gave.
type Row struct {
	Scenario Scenario
	Result   Result
}

// Run simulates every scenario with base's scenario-independent fields
// (see Scenario.With).
func Run(base Config, scenarios []Scenario) ([]Row, error) {
	rows := make([]Row, 0, len(scenarios))
	for _, s := range scenarios {
		r, err := Simulate(s.With(base))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		rows = append(rows, Row{s, r})
	}
	return rows, nil
}

// WriteTable writes rows as a markdown table.
func WriteTable(w io.Writer, rows []Row) error {
	var b strings.Builder
	b.WriteString("| clients | load during the outage | peak load | load overall | failed requests | recovery |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, row := range rows {
		r := row.Result
		fmt.Fprintf(&b, "| %s | %.3f× (%s) | %.2f× | %.3f× | %d of %d | %s |\n",
			row.Scenario.Name, r.OutageLoad(), extra(r.OutageLoad()), r.Peak(), r.Load(),
			r.Failed, r.Requests, recovery(r))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// extra writes a load as the percentage above (or below) one attempt per
// request.
func extra(load float64) string {
	return fmt.Sprintf("%+.1f%%", (load-1)*100)
}

func recovery(r Result) string {
	switch {
	case !r.Recovered:
		return "not within the run"
	case r.Recovery == 0:
		return "at once"
	}
	return r.Recovery.Round(time.Millisecond).String()
}

// WriteFleetTable writes rows of FleetScenarios as a markdown table.
func WriteFleetTable(w io.Writer, rows []Row) error {
	var b strings.Builder
	b.WriteString("| instances | failed calls before all open | all open after | probes per half-open | load during the outage | recovery |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, row := range rows {
		r := row.Result
		allOpen := "never"
		if r.AllOpen > 0 {
			allOpen = r.AllOpen.Round(time.Millisecond).String()
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %.1f | %.4f× | %s |\n",
			row.Scenario.Name, r.FailedBeforeOpen, allOpen, r.ProbesPerHalfOpen(), r.OutageLoad(), recovery(r))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
