package edges

import (
	"testing"
	"time"

	"github.com/recur-go/recur/schedule"
)

func TestAddDur(t *testing.T) {
	for _, c := range []struct{ a, b, want time.Duration }{
		{0, 0, 0},
		{time.Second, time.Millisecond, time.Second + time.Millisecond},
		{schedule.MaxDuration - 1, 1, schedule.MaxDuration},
		{schedule.MaxDuration - 1, 2, schedule.MaxDuration},
		{schedule.MaxDuration, schedule.MaxDuration, schedule.MaxDuration},
	} {
		if got := addDur(c.a, c.b); got != c.want {
			t.Errorf("addDur(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
