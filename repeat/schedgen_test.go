package repeat_test

import (
	"time"

	"github.com/recur-go/recur/internal/schedgen"
	"github.com/recur-go/recur/schedule"
	"pgregory.net/rapid"
)

// draws is schedgen.Source over rapid, one to one: rapid makes the
// choices of schedgen's generators, and shrinks them.
type draws struct{ t *rapid.T }

func (d draws) IntRange(lo, hi int, label string) int { return rapid.IntRange(lo, hi).Draw(d.t, label) }

func (d draws) Bool(label string) bool { return rapid.Bool().Draw(d.t, label) }

func (d draws) Index(n int, label string) int {
	is := make([]int, n)
	for i := range is {
		is[i] = i
	}
	return rapid.SampledFrom(is).Draw(d.t, label)
}

// genSchedule returns a generator of valid schedules of every variant.
func genSchedule() *rapid.Generator[schedule.Schedule] {
	return rapid.Custom(func(t *rapid.T) schedule.Schedule { return schedgen.Valid(draws{t}) })
}

// genDurations returns a generator of n attempt durations for a run
// (schedgen.Attempt).
func genDurations(n int) *rapid.Generator[[]time.Duration] {
	return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) time.Duration { return schedgen.Attempt(draws{t}) }), n, n)
}
