package main

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/parse"
)

// svgText is one <text> element of a chart.
type svgText struct {
	x, y   float64
	anchor string
	text   string
}

var textElem = regexp.MustCompile(`<text x="([0-9.]+)" y="([0-9.]+)" text-anchor="(\w+)">([^<]*)</text>`)

// chartTexts charts policy over a few seeds as SVG and returns its texts.
func chartTexts(t *testing.T, policy string, maxRetries int) []svgText {
	t.Helper()
	s, err := parse.Parse(policy)
	if err != nil {
		t.Fatal(err)
	}
	d := measure(context.Background(), s, 20, maxRetries, func(int) {})
	var out []svgText
	for _, m := range textElem.FindAllStringSubmatch(string(svgChart(d)), -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		out = append(out, svgText{x, y, m[3], m[4]})
	}
	return out
}

// TestChartZeroDelayAxis: a policy that never waits gets round tick
// labels, not 1ns, 1ns, 1ns, 0s, 0s.
func TestChartZeroDelayAxis(t *testing.T) {
	var ticks []string
	for _, tx := range chartTexts(t, "times(4)", 20) {
		if tx.anchor == "end" && tx.x == left-6 {
			ticks = append(ticks, tx.text)
		}
	}
	want := []string{"0s", "250µs", "500µs", "750µs", "1ms"}
	if diff := cmp.Diff(append(want, want...), ticks); diff != "" {
		t.Errorf("tick labels of both panels (-want +got):\n%s", diff)
	}
}

// TestChartTitlesClear: each panel's title sits above its top tick label
// by more than a line of 12px text, so that the two do not overlap.
func TestChartTitlesClear(t *testing.T) {
	texts := chartTexts(t, "backoff(100ms, 30s) & times(6)", 20)
	for _, title := range []string{"delay before attempt", "total wait so far"} {
		var ty float64
		for _, tx := range texts {
			if tx.text == title {
				ty = tx.y
			}
		}
		if ty == 0 {
			t.Fatalf("no title %q", title)
		}
		// The top tick label is the highest tick label below the title.
		top := 0.0
		for _, tx := range texts {
			if tx.anchor == "end" && tx.y > ty && (top == 0 || tx.y < top) {
				top = tx.y
			}
		}
		if top-ty < 14 {
			t.Errorf("title %q at y=%v, top tick label at y=%v: %vpx apart, want 14 or more", title, ty, top, top-ty)
		}
	}
}

// TestChartNumbersAttempts: the chart numbers the retries by the attempt
// they come before, from 2, as the playground does.
func TestChartNumbersAttempts(t *testing.T) {
	var xs []string
	axis := false
	for _, tx := range chartTexts(t, "spaced(1s) & times(4)", 20) {
		if tx.anchor == "middle" && strings.Trim(tx.text, "0123456789") == "" && tx.y > 200 && tx.y < 300 {
			xs = append(xs, tx.text)
		}
		axis = axis || tx.text == "attempt"
	}
	if diff := cmp.Diff([]string{"2", "3", "4"}, xs); diff != "" {
		t.Errorf("x labels of the first panel (-want +got):\n%s", diff)
	}
	if !axis {
		t.Error("no x-axis title \"attempt\"")
	}
}

// TestChartSaysCut: a chart of a policy cut at --max-retries says so.
func TestChartSaysCut(t *testing.T) {
	found := false
	for _, tx := range chartTexts(t, "spaced(1s)", 5) {
		found = found || strings.Contains(tx.text, "cut at --max-retries 5")
	}
	if !found {
		t.Error("the chart of spaced(1s) cut at 5 retries does not say it was cut")
	}
	for _, tx := range chartTexts(t, "spaced(1s) & times(3)", 5) {
		if strings.Contains(tx.text, "cut at") {
			t.Errorf("the chart of a policy that ends within --max-retries says %q", tx.text)
		}
	}
}
