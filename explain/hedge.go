package explain

import (
	"strconv"

	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// hedgeListed is how many copies Hedge names one by one.
const hedgeListed = 5

// Hedge says in plain words what s does as a hedging schedule (see
// retry.Hedge): when each extra copy of a call starts if no copy has
// answered by then, and how many can be in flight at once. The start of
// copy k is the total wait of s before its attempt k, so it is exact
// wherever Bounds is. MaxAttempts is the most copies, retry.MaxCopies when
// s sets no lower bound; MinTotalNS and MaxTotalNS are when the last copy
// starts at the earliest and the latest.
//
// For example, spaced(50ms) & times(3) reads "hedged: a second copy at
// 50ms if no copy has answered by then, a third at 100ms; at most 3
// copies in flight".
func Hedge(s schedule.Schedule) Explanation {
	b := schedule.Bounds(s)
	most := min(b.MaxAttempts, retry.MaxCopies)
	e := Explanation{Policy: s.String(), Stops: true, MaxAttempts: &most}
	text := "hedged: "
	if most == 1 {
		e.MinTotalNS, e.MaxTotalNS = ptr(int64(0)), ptr(int64(0))
		e.Explanation = text + "one copy only, so it never hedges"
		return e
	}
	var last schedule.Limits
	for k := 2; k <= most; k++ {
		last = schedule.Bounds(schedule.Intersect{A: s, B: schedule.Times{N: k}})
		if k > hedgeListed {
			continue // only the last copy's start is still wanted
		}
		switch k {
		case 2:
			text += "a second copy " + at(last) + " if no copy has answered by then"
		default:
			text += ", a " + ordinal(k) + " " + at(last)
		}
	}
	if most > hedgeListed {
		text += ", and so on to copy " + strconv.Itoa(most) + " " + at(last)
	}
	text += "; at most " + strconv.Itoa(most) + " copies in flight"
	switch {
	case b.MaxAttempts > retry.MaxCopies:
		text += " (retry.MaxCopies: the policy itself sets no lower bound)"
	case most > 5:
		text += " (gRFC A6 allows 5)"
	}
	if b := schedule.FirstWait(s); b.MaxTotal == 0 {
		text += "; every call sends two copies at once, doubling the load"
	}
	e.MinTotalNS, e.MaxTotalNS = ptr(int64(last.MinTotal)), ptr(int64(last.MaxTotal))
	e.Explanation = text
	return e
}

// at words when a copy starts, from the limits of the waits before it.
func at(l schedule.Limits) string {
	if l.MinTotal == l.MaxTotal {
		return "at " + Duration(l.MinTotal)
	}
	return "between " + Duration(l.MinTotal) + " and " + Duration(l.MaxTotal)
}

func ordinal(k int) string {
	switch k {
	case 2:
		return "second"
	case 3:
		return "third"
	case 4:
		return "fourth"
	case 5:
		return "fifth"
	}
	return strconv.Itoa(k) + "th"
}
