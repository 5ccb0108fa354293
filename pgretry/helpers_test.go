package pgretry_test

import "github.com/recur-go/recur/schedule"

func mustTimes(n int) schedule.Schedule { return schedule.Times{N: n} }
