package lint

import (
	"fmt"
	"strings"
	"time"

	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

// bareDuration flags a small bare integer in a duration place: the language
// reads spaced(1) as one millisecond, but whoever wrote it most likely
// meant a second. It needs the text, so only CheckSource applies it.
func bareDuration(in *input, report reportFunc) {
	var small []parse.BareDuration
	for _, b := range in.bare {
		if b.Value > 0 && b.Value < MinBareDuration*time.Millisecond {
			small = append(small, b)
		}
	}
	if len(small) == 0 {
		return
	}
	// One fix for them all: each small bare number read as seconds.
	var fixed strings.Builder
	last := 0
	for _, b := range small {
		end := b.Offset + len(b.Text)
		fixed.WriteString(in.src[last:end])
		fixed.WriteString("s")
		last = end
	}
	fixed.WriteString(in.src[last:])
	fix := whole(func(s schedule.Schedule) schedule.Schedule {
		if fs, err := parse.Parse(fixed.String()); err == nil {
			return fs
		}
		return s // not reached: a number became a duration in range
	})
	for _, b := range small {
		line, col := position(in.src, b.Offset)
		report(in.s, fmt.Sprintf("%d:%d: %s is %v: a bare number is milliseconds; write %ss, or %sms if you mean it", line, col, b.Text, b.Value, b.Text, b.Text), fix)
	}
}

// position returns the line and column, from 1 and in characters, of byte
// offset off in src.
func position(src string, off int) (line, col int) {
	line, col = 1, 1
	for _, r := range src[:off] {
		if r == '\n' {
			line, col = line+1, 1
			continue
		}
		col++
	}
	return line, col
}
