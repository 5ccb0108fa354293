package edges

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// WriteTable writes the results as a markdown table, one row per case.
func WriteTable(w io.Writer, results []Result) error {
	if len(results) == 0 {
		return nil
	}
	steps := sortedSteps(results[0])
	var b strings.Builder
	b.WriteString("| library | configuration | cap |")
	for _, s := range steps {
		fmt.Fprintf(&b, " step %s |", count(s))
	}
	fmt.Fprintf(&b, " over all %s steps | why |\n|---|---|---|", count(results[0].Steps))
	for range steps {
		b.WriteString("---|")
	}
	b.WriteString("---|---|\n")
	for _, r := range results {
		fmt.Fprintf(&b, "| %s | `%s` | %s |", r.Case.Lib, r.Case.Config, r.Case.Cap)
		for _, s := range steps {
			fmt.Fprintf(&b, " %s |", cell(r.At[s]))
		}
		fmt.Fprintf(&b, " %s | %s |\n", Summary(r), r.Case.Note)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteZeroTable writes what each library does with a zero base.
func WriteZeroTable(w io.Writer, zs []ZeroBase, steps int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "| library | configuration | zero base | first %d delays | why |\n|---|---|---|---|---|\n", steps)
	for _, z := range zs {
		o := TryZero(z, steps)
		verdict, delays := "", ""
		switch {
		case o.Panic != "":
			verdict = "rejected by a panic at construction: " + strconv.Quote(o.Panic)
		case o.Err != nil:
			verdict = "rejected with an error: " + strconv.Quote(o.Err.Error())
		default:
			verdict = "**accepted silently**"
			if allZero(o.Delays) {
				verdict += ": every delay is 0, a retry loop with no wait"
			}
			parts := make([]string, len(o.Delays))
			for i, d := range o.Delays {
				parts[i] = short(d)
			}
			delays = strings.Join(parts, ", ")
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %s |\n", z.Lib, z.Config, verdict, delays, z.Note)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func allZero(ds []time.Duration) bool {
	for _, d := range ds {
		if d != 0 {
			return false
		}
	}
	return len(ds) > 0
}

// Summary says in words what happened over all the steps of r.
func Summary(r Result) string {
	var parts []string
	span := func(n, first int64) string {
		if n == r.Steps-first+1 {
			return fmt.Sprintf("at every step from step %s", count(first))
		}
		return fmt.Sprintf("at %s steps, the first at step %s", count(n), count(first))
	}
	if r.Panics > 0 {
		parts = append(parts, "**panics** "+span(r.Panics, r.FirstPanic))
	}
	if r.Negative > 0 {
		parts = append(parts, "**negative** "+span(r.Negative, r.FirstNegative))
	}
	if r.Zero > 0 {
		parts = append(parts, "**zero** "+span(r.Zero, r.FirstZero))
	}
	if len(parts) == 0 {
		parts = append(parts, "never negative, zero or a panic")
	}
	if r.FirstMax > 0 {
		parts = append(parts, "reaches max at step "+count(r.FirstMax))
	}
	return strings.Join(parts, "; ")
}

func cell(o Outcome) string {
	switch {
	case o.Panic != "":
		return "**panic**: " + o.Panic
	case o.Delay < 0:
		return "**negative**: " + short(o.Delay)
	case o.Delay == 0:
		return "**0**"
	case o.Delay == math.MaxInt64:
		return "max"
	}
	return short(o.Delay)
}

const year = 365 * 24 * time.Hour

// short formats d to three significant digits, in years past a year.
func short(d time.Duration) string {
	switch {
	case d == math.MinInt64:
		return "min (−292 y)"
	case d == math.MaxInt64:
		return "max (292 y)"
	case d >= year || d <= -year:
		return strconv.FormatFloat(float64(d)/float64(year), 'g', 3, 64) + " y"
	case d == 0:
		return "0"
	}
	// Round to three significant digits.
	a := d
	if a < 0 {
		a = -a
	}
	unit := time.Duration(1)
	for a/unit >= 1000 {
		unit *= 10
	}
	return d.Round(unit).String()
}

// count writes n with thin groups of three digits, or as a power of ten.
func count(n int64) string {
	if n >= 1_000_000 && n%1_000_000 == 0 {
		e, m := 0, n
		for m%10 == 0 {
			m /= 10
			e++
		}
		if m == 1 {
			return "10" + superscript(e)
		}
	}
	s := strconv.FormatInt(n, 10)
	if n < 10_000 {
		return s
	}
	var out []byte
	for i, c := range []byte(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ' ')
		}
		out = append(out, c)
	}
	return string(out)
}

func superscript(e int) string {
	const digits = "⁰¹²³⁴⁵⁶⁷⁸⁹"
	sup := []rune(digits)
	var out []rune
	for _, c := range strconv.Itoa(e) {
		out = append(out, sup[c-'0'])
	}
	return string(out)
}

func sortedSteps(r Result) []int64 { return slices.Sorted(maps.Keys(r.At)) }
