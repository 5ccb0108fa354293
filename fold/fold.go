// Package fold is what a metrics exporter of recur needs to report
// targets as labels without letting their number or their text run away:
// promrecur and otelrecur use it, and an exporter of your own (StatsD,
// Datadog, a log line) can too, so that its labels follow the same rules.
//
// Value makes any target fit to be a label value: valid UTF-8 and at most
// MaxValueLen bytes. A metrics client reports at most a cap of distinct
// targets; the rest are folded into one label, Overflow:
//
//   - Labels admits targets as labels up to a cap, for what an exporter
//     reads at collection time: Breakers and Tokens turn the breakers and
//     budgets of registries (and of a list of Named ones that no registry
//     holds, which Add builds) into one row per label. A folded row
//     reports the worst state of its breakers (open over half-open over
//     closed), the sums of their counters and the fewest tokens of its
//     token buckets, so that an alert on the overflow label still fires.
//     A target that has had a label of its own keeps it, so that no
//     counter moves between labels from one collection to the next.
//   - Map holds an exporter's per-target instruments (counters, attribute
//     sets) for its event path, up to a cap, past which every new target
//     gets the Overflow entry. Reading an existing entry takes no lock and
//     allocates nothing.
//
// StateValue is the gauge value of a breaker state, and CheckBuckets
// checks the histogram bucket bounds of an exporter's Config.
package fold

import (
	"errors"
	"fmt"
	"hash/fnv"
	"iter"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
)

// Overflow is the label of the targets past the cap: the name a full
// breaker.Registry gives its shared breaker.
const Overflow = breaker.Overflow

// MaxValueLen is the most bytes a label value that Value returns has.
const MaxValueLen = 128

// keptLen is how many bytes of a value longer than MaxValueLen Value
// keeps before the "~" and the 16 hex digits of the hash.
const keptLen = MaxValueLen - 1 - 16 - 1

// Value returns s fit to be a label value: s itself when it is valid
// UTF-8 of at most MaxValueLen bytes, which costs no allocation. Invalid
// UTF-8 is repaired, each run of bad bytes becoming U+FFFD; a value
// still longer than MaxValueLen is cut to its first 110 bytes or fewer,
// at a character's end, followed by "~" and 16 hex digits of the FNV-1a
// hash of the whole of s, so that values that share a long prefix keep
// labels of their own and the same s always gets the same label. Two
// values can still get the same label (two invalid bytes repaired the
// same way, or a value that is another's cut form): an exporter
// de-duplicates what Value returns, never its input.
func Value(s string) string {
	if len(s) <= MaxValueLen && utf8.ValidString(s) {
		return s
	}
	v := s
	if !utf8.ValidString(s) {
		v = strings.ToValidUTF8(s, "\uFFFD")
		if len(v) <= MaxValueLen {
			return v
		}
	}
	cut := keptLen
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(s))
	return fmt.Sprintf("%s~%016x", v[:cut], h.Sum64())
}

// Labels admits targets as labels, up to a cap. It is not safe for
// concurrent use: an exporter calls it under its collection lock.
type Labels struct {
	max  int
	seen map[string]bool
}

// NewLabels returns Labels that admit up to max targets.
func NewLabels(max int) *Labels { return &Labels{max: max, seen: map[string]bool{}} }

// Admit returns the label of target: Value(target) if that label
// already is one or fewer than the cap are, else Overflow. Targets whose
// Value is the same share one label (and one row of Breakers and
// Tokens), so that no two rows of an exporter have the same label.
func (l *Labels) Admit(target string) string {
	label := Value(target)
	if label == Overflow || (!l.seen[label] && len(l.seen) >= l.max) {
		return Overflow
	}
	l.seen[label] = true
	return label
}

// Named is a breaker or a budget that no registry holds, with the target
// it is reported under.
type Named[T any] struct {
	Target string
	Of     T
}

// StateValue is the gauge value of s: 0 closed, 1 half-open, 2 open. An
// operator's ForcedOpen refuses calls as Open does and reports 2;
// Disabled and MetricsOnly let every call through and report 0.
func StateValue(s breaker.State) int64 {
	switch s {
	case breaker.HalfOpen:
		return 1
	case breaker.Open, breaker.ForcedOpen:
		return 2
	}
	return 0
}

// BreakerRow is what one label reports of its breakers.
type BreakerRow struct {
	Label string
	// State is the worst StateValue of the breakers folded into the label.
	State int64
	// Opened and Rejected are the sums of their Stats' counters.
	Opened, Rejected uint64
}

// Breakers returns a row per label for the breakers of reg (which may be
// nil) and extra, in the order their labels were first seen.
func Breakers(l *Labels, reg *breaker.Registry, extra []Named[*breaker.Breaker]) []BreakerRow {
	var rows []BreakerRow
	at := map[string]int{}
	var all iter.Seq2[string, *breaker.Breaker]
	if reg != nil {
		all = reg.All()
	}
	for target, b := range each(all, extra) {
		label := l.Admit(target)
		s := b.Stats()
		i, ok := at[label]
		if !ok {
			i = len(rows)
			at[label] = i
			rows = append(rows, BreakerRow{Label: label})
		}
		r := &rows[i]
		r.State = max(r.State, StateValue(s.State))
		r.Opened = addSat(r.Opened, s.Opened)
		r.Rejected = addSat(r.Rejected, s.Rejected)
	}
	return rows
}

// TokenRow is what one label reports of its token buckets.
type TokenRow struct {
	Label string
	// Tokens is the fewest tokens left among the buckets folded into the
	// label.
	Tokens float64
}

// Tokens returns a row per label for the token buckets of reg (which may
// be nil) and extra, in the order their labels were first seen. The other
// budgets keep no tokens and have no row.
func Tokens(l *Labels, reg *budget.Registry, extra []Named[budget.Budget]) []TokenRow {
	var rows []TokenRow
	at := map[string]int{}
	var all iter.Seq2[string, budget.Budget]
	if reg != nil {
		all = reg.All()
	}
	for target, b := range each(all, extra) {
		tb, ok := b.(*budget.TokenBucket)
		if !ok {
			continue
		}
		label := l.Admit(target)
		t := tb.Tokens()
		if i, ok := at[label]; ok {
			rows[i].Tokens = math.Min(rows[i].Tokens, t)
			continue
		}
		at[label] = len(rows)
		rows = append(rows, TokenRow{Label: label, Tokens: t})
	}
	return rows
}

// each yields all's entries (if all is not nil) and then extra's.
func each[T any](all iter.Seq2[string, T], extra []Named[T]) iter.Seq2[string, T] {
	return func(yield func(string, T) bool) {
		if all != nil {
			for k, v := range all {
				if !yield(k, v) {
					return
				}
			}
		}
		for _, n := range extra {
			if !yield(n.Target, n.Of) {
				return
			}
		}
	}
}

// addSat returns a+b, or the largest uint64 if that overflows.
func addSat(a, b uint64) uint64 {
	if s := a + b; s >= a {
		return s
	}
	return math.MaxUint64
}

// Add returns list with target's entry v appended, and true; or list as
// it is, and false, if target already has an entry.
func Add[T any](list []Named[T], target string, v T) ([]Named[T], bool) {
	for _, n := range list {
		if n.Target == target {
			return list, false
		}
	}
	return append(list, Named[T]{Target: target, Of: v}), true
}

// CheckBuckets returns what is wrong with histogram bucket bounds b as
// Config.Buckets: empty (nil, the default, is fine), NaN, or not
// increasing.
func CheckBuckets(b []float64) error {
	if b == nil {
		return nil
	}
	if len(b) == 0 {
		return errors.New("empty Config.Buckets (nil means the default buckets)")
	}
	for i, v := range b {
		if math.IsNaN(v) {
			return fmt.Errorf("Config.Buckets[%d] is NaN", i)
		}
		if i > 0 && v <= b[i-1] {
			return fmt.Errorf("Config.Buckets do not increase: [%d] = %v after %v", i, v, b[i-1])
		}
	}
	return nil
}
