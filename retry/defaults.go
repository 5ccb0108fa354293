package retry

import (
	"time"

	"github.com/recur-go/recur/schedule"
)

// DefaultSchedule returns recur's default retry policy, the one every
// adapter uses when it is given no policy of its own: full jitter from
// 100ms doubling to at most 2s, three attempts in all. In the policy
// language it is "fulljitter(100ms, 2s) & times(3)", printed as
//
//	Intersect(Jittered(Exponential(100ms, 200%, 2s), 0%, 100%), Times(3))
//
// The formula is gRFC A6's (each wait a random fraction of a backoff that
// doubles from an initial 100ms) and what Marc Brooker calls "full
// jitter" ("Exponential Backoff And Jitter", AWS Architecture Blog): the
// randomness spreads the retries of many clients apart, so a recovering
// target is not met by all of them at once. Three attempts is the count
// the SRE book (chapter 22) and A6's examples use; together with the
// default budget (budget.DefaultConfig), a dead target sees about 10% more
// load than it would without retries.
func DefaultSchedule() schedule.Schedule {
	return schedule.Intersect{
		A: schedule.FullJitter(100*time.Millisecond, 2*time.Second),
		B: schedule.Times{N: 3},
	}
}
