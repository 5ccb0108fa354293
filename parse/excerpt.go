package parse

import (
	"strconv"
	"unicode/utf8"
)

// MaxQuoted is the most characters of a token that an error message
// quotes: a longer token is cut to its first MaxQuoted characters and "…",
// so that a 60 KB name does not come back as a 60 KB message. Error.Token
// and Caret still give the token and its spot.
const MaxQuoted = 40

// clip returns s, or its first MaxQuoted characters and "…" if it is
// longer.
func clip(s string) string {
	if len(s) <= MaxQuoted {
		return s
	}
	cut := 0
	for range MaxQuoted {
		if cut >= len(s) {
			return s
		}
		_, size := utf8.DecodeRuneInString(s[cut:])
		cut += size
	}
	if cut >= len(s) {
		return s
	}
	return s[:cut] + "…"
}

// quote returns clip(s) in Go's double-quoted form.
func quote(s string) string { return strconv.Quote(clip(s)) }
