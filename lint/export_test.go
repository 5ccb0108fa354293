package lint

import "github.com/recur-go/recur/schedule"

// LivePhases is livePhases, for the property tests of package lint_test.
func LivePhases(s schedule.Schedule) int { return newMemo(Retry).livePhases(s) }
