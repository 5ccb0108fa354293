package interp_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/schedule"
)

// pinComposite uses Union, Intersect, AndThen, UpTo, Capped, Spaced and
// both random leaves; its budget runs out within the pinned decisions.
var pinComposite schedule.Schedule = schedule.UpTo{
	Inner: schedule.AndThen{
		First: schedule.Intersect{
			A: schedule.Union{A: schedule.Backoff(100*ms, 30*sec), B: schedule.Decorrelated{Base: 50 * ms, Cap: 10 * sec}},
			B: schedule.Times{N: 4},
		},
		Then: schedule.Union{
			A: schedule.Jittered{Inner: schedule.Spaced{Every: 2 * sec}, LowPct: 90, HighPct: 110},
			B: schedule.Capped{Inner: schedule.FullJitter(sec, time.Minute), Max: 20 * sec},
		},
	},
	Budget: 10 * sec,
}

// TestPinnedDelays pins exact delays, jitter included, for a few seeds and
// schedules. The values were captured from the interpreter as it was before
// stepping was optimised; every delay of every seed must stay bit-for-bit
// the same, since a job queue resumes saved runs and expects the delays it
// would have had. The law tests only compare runs with each other, so they
// would not notice a change that moved every decision alike.
func TestPinnedDelays(t *testing.T) {
	tests := []struct {
		name  string
		s     schedule.Schedule
		durs  []time.Duration // attempt durations, the last one repeating
		seed  uint64
		want  []time.Duration // the delays of the first 16 decisions, or fewer
		stops bool            // the decision after the last of want is stop
	}{
		{"backoff&times5", schedule.Intersect{A: schedule.Backoff(100*ms, 30*sec), B: schedule.Times{N: 5}}, []time.Duration{0}, 1, []time.Duration{61824344, 179909412, 353079214, 695383790}, true},
		{"backoff&times5", schedule.Intersect{A: schedule.Backoff(100*ms, 30*sec), B: schedule.Times{N: 5}}, []time.Duration{0}, 7, []time.Duration{72452336, 180357686, 354386481, 631098563}, true},
		{"fulljitter", schedule.FullJitter(100*ms, 10*sec), []time.Duration{0}, 1, []time.Duration{65516857, 184826496, 225723871, 262049339, 704785608, 2718903591, 199065835, 6706821906, 7308230112, 7569690751, 4337862757, 3774362149, 5933547684, 866294300, 4082561211, 7001071697}, false},
		{"fulljitter", schedule.FullJitter(100*ms, 10*sec), []time.Duration{0}, 7, []time.Duration{65482394, 137925899, 280458591, 744854655, 1194024564, 1179202405, 6333145043, 5636226561, 481172206, 2942098306, 333540128, 2267506691, 1599231299, 381176994, 9467926583, 1297353639}, false},
		{"decorrelated", schedule.Decorrelated{Base: 50 * ms, Cap: 10 * sec}, []time.Duration{0}, 1, []time.Duration{129652712, 145071153, 55968750, 75200747, 114545385, 245640613, 452373891, 382735536, 855623370, 220735828, 481089529, 764822261, 676917816, 1114166648, 1736025587, 5093134062}, false},
		{"decorrelated", schedule.Decorrelated{Base: 50 * ms, Cap: 10 * sec}, []time.Duration{0}, 7, []time.Duration{112594842, 92229902, 266693252, 164253916, 120218206, 207934305, 579123942, 261393525, 648568403, 1701448879, 4554298384, 3401586572, 1463007251, 3904781081, 1701089733, 3894087237}, false},
		{"capped-jittered-fibonacci", schedule.Capped{Inner: schedule.Jittered{Inner: schedule.Fibonacci{Base: 10 * ms}, LowPct: 80, HighPct: 120}, Max: 2 * sec}, []time.Duration{0}, 1, []time.Duration{11872976, 10290389, 22937473, 35669010, 47453397, 70905037, 106661264, 199886574, 323134669, 584021976, 841605783, 1676233439, 2000000000, 2000000000, 2000000000, 2000000000}, false},
		{"capped-jittered-fibonacci", schedule.Capped{Inner: schedule.Jittered{Inner: schedule.Fibonacci{Base: 10 * ms}, LowPct: 80, HighPct: 120}, Max: 2 * sec}, []time.Duration{0}, 7, []time.Duration{9018550, 8079353, 23533201, 35623069, 49459210, 83323921, 137860813, 237545855, 274355120, 507498768, 861317304, 1523929439, 2000000000, 2000000000, 2000000000, 2000000000}, false},
		{"composite", pinComposite, []time.Duration{30 * ms, 700 * ms, 2500 * ms, 0}, 1, []time.Duration{61824344, 145071153, 55968750, 327561674, 880982011, 755020138, 38706739, 1825720150, 169479230, 2684203, 2073374000}, true},
		{"composite", pinComposite, []time.Duration{30 * ms, 700 * ms, 2500 * ms, 0}, 7, []time.Duration{72452336, 92229902, 266693252, 931068319, 1094618528, 1474003007, 507901758, 1862729233, 119274645, 9690140, 705628, 8709, 35}, true},
		{"composite20", composite20, []time.Duration{10 * ms, 3 * sec}, 1, []time.Duration{61824344, 145071153, 55968750, 75200747, 1000000000, 1699314744, 124416147, 5365457525, 11693168180, 24223010404, 26027176546, 22646172894, 35601286109, 5197765804, 24495367268, 42006430187}, false},
		{"composite20", composite20, []time.Duration{10 * ms, 3 * sec}, 7, []time.Duration{72452336, 92229902, 266693252, 164253916, 1000000000, 1000000000, 3958215652, 4508981249, 4169124035, 9414714582, 4888408707, 13605040149, 9595387799, 2287061969, 56807559498, 7784121834}, false},
	}
	for _, tt := range tests {
		var got []time.Duration
		stops := false
		for _, e := range drive(tt.s, tt.seed, tt.durs, 16) {
			if !e.OK {
				stops = true
				break
			}
			got = append(got, e.Delay)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" || stops != tt.stops {
			t.Errorf("%s, seed %d: stops = %v, want %v; delays (-want +got):\n%s", tt.name, tt.seed, stops, tt.stops, diff)
		}
	}
}
