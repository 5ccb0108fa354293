// Package suggest finds the known word a mistyped one most likely meant,
// for the "did you mean" of the policy parser and of the audit plan's
// keys.
//
// Its users are parse and audit. It imports nothing of the module. It
// exists three times: here, and as copies in cmd/schedcheck/internal/suggest
// and capi/internal/suggest for the schedcheck and capi modules, which
// cannot import another module's internal packages; they are the same but
// for import paths, and internal/layout's test keeps them so.
package suggest

import "strings"

// Closest returns the candidate closest to word in edit distance,
// compared without case, if it is close enough to be a likely typo (about
// one edit in three letters, at most three); otherwise "". Ties go to the
// earliest candidate. Words longer than 64 bytes are not compared.
func Closest(word string, candidates []string) string {
	best, bestDist := "", min(len(word)/3+1, 3)
	lw := strings.ToLower(word)
	for _, c := range candidates {
		if d := distance(lw, strings.ToLower(c), bestDist); d <= bestDist && (best == "" || d < bestDist) {
			best, bestDist = c, d
		}
	}
	return best
}

// distance returns the Levenshtein distance between a and b in bytes, or
// limit+1 when it is larger than limit or either word is over 64 bytes.
func distance(a, b string, limit int) int {
	if len(a)-len(b) > limit || len(b)-len(a) > limit || len(a) > 64 || len(b) > 64 {
		return limit + 1
	}
	var rows [2][65]int
	prev, cur := &rows[0], &rows[1]
	for j := 0; j <= len(b); j++ {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
