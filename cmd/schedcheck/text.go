package main

import "strings"

// positionWindow is how many lines of a config file, from the one where a
// policy starts, are searched for the line of the policy that has an
// error: a quoted string may be folded or escaped so that its lines do not
// fall on the file's lines one for one. Bounding it keeps the cost of
// locating each of many errors independent of the file's length.
const positionWindow = 50

// fileText is a config file with the offsets of its lines, found once.
type fileText struct {
	data   string
	starts []int // the offset where each line starts
}

func newFileText(data []byte) *fileText {
	f := &fileText{data: string(data), starts: []int{0}}
	for i, c := range data {
		if c == '\n' {
			f.starts = append(f.starts, i+1)
		}
	}
	return f
}

// line returns the file's line i, counted from 0, without its line break.
func (f *fileText) line(i int) (string, bool) {
	if i < 0 || i >= len(f.starts) {
		return "", false
	}
	end := len(f.data)
	if i+1 < len(f.starts) {
		end = f.starts[i+1] - 1
	}
	return f.data[f.starts[i]:end], true
}

// nthLine returns line i of s, counted from 0, or "".
func nthLine(s string, i int) string {
	for ; i > 0; i-- {
		k := strings.IndexByte(s, '\n')
		if k < 0 {
			return ""
		}
		s = s[k+1:]
	}
	if k := strings.IndexByte(s, '\n'); k >= 0 {
		return s[:k]
	}
	return s
}
