package lint

import (
	"fmt"
	"time"

	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

// bareDuration flags a small bare integer in a duration place: the language
// reads spaced(1) as one millisecond, but whoever wrote it most likely
// meant a second. It needs the text, so only CheckSource applies it.
func bareDuration(in *input, report reportFunc) {
	for _, b := range in.bare {
		if b.Value <= 0 || b.Value >= MinBareDuration*time.Millisecond {
			continue
		}
		line, col := position(in.src, b.Offset)
		fixed := in.src[:b.Offset] + b.Text + "s" + in.src[b.Offset+len(b.Text):]
		report(in.s, fmt.Sprintf("%d:%d: %s is %v: a bare number is milliseconds; write %ss, or %sms if you mean it", line, col, b.Text, b.Value, b.Text, b.Text),
			func(s schedule.Schedule) schedule.Schedule {
				if fs, err := parse.Parse(fixed); err == nil {
					return fs
				}
				return s // not reached: a number became a duration of the same kind
			})
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
