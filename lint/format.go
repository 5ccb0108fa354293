package lint

import (
	"regexp"
	"strings"
	"sync"

	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

// Format returns s in the policy language's infix form, the form lint
// writes its fixes in: parse.Format's Infix style, with durations written
// as people write them (1m, 1m30s, 1h rather than Go's 1m0s, 1m30s,
// 1h0m0s). It parses back to a schedule equal to s; where it would not,
// it is the Infix form unchanged. schedule.Schedule's String stays the
// canonical form.
func Format(s schedule.Schedule) string {
	text := parse.Format(s, parse.Infix)
	short := shortDurations(text)
	if short == text {
		return text
	}
	if back, err := parse.Parse(short); err != nil || back != s {
		return text
	}
	return short
}

// goDuration matches a duration as Go prints it when it has hours or
// minutes (1m0s, 1h0m0s, 2m30.5s), with its parts as groups.
var goDuration = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(?:([0-9]+)h)?(?:([0-9]+)m)([0-9]+(?:\.[0-9]+)?)s\b`)
})

// shortDurations drops the zero parts of every duration in text that has
// hours or minutes: 1m0s is 1m, 1h0m30s is 1h30s, 1h0m0s is 1h.
func shortDurations(text string) string {
	return goDuration().ReplaceAllStringFunc(text, func(d string) string {
		m := goDuration().FindStringSubmatch(d)
		var b strings.Builder
		for i, unit := range []string{"h", "m", "s"} {
			if v := m[i+1]; v != "" && v != "0" {
				b.WriteString(v + unit)
			}
		}
		if b.Len() == 0 {
			return d // not reached: Go prints a zero duration as 0s
		}
		return b.String()
	})
}
