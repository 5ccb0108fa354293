package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// terminal returns w if it is a terminal (a character device), else nil.
func terminal(w io.Writer) io.Writer {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return f
}

// meter shows a long computation's progress on one line of a terminal:
// nothing until the computation has taken c.pace, then at most one update
// per c.pace, each overwriting the last; clear erases the line. Without a
// terminal it prints nothing.
type meter struct {
	w           io.Writer
	pace        time.Duration
	start, last time.Time
	shown       bool
}

func (c *cli) meter() *meter {
	return &meter{w: c.progress, pace: c.pace, start: time.Now()}
}

func (m *meter) printf(format string, args ...any) {
	if m.w == nil {
		return
	}
	now := time.Now()
	if now.Sub(m.start) < m.pace || m.shown && now.Sub(m.last) < m.pace {
		return
	}
	m.last, m.shown = now, true
	fmt.Fprintf(m.w, "\r\033[K"+format, args...)
}

func (m *meter) clear() {
	if m.shown {
		fmt.Fprint(m.w, "\r\033[K")
		m.shown = false
	}
}
