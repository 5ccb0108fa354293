package schedule_test

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/schedule"
)

func TestString(t *testing.T) {
	tests := []struct {
		s    schedule.Schedule
		want string
	}{
		{schedule.Times{N: 5}, "Times(5)"},
		{schedule.Spaced{Every: 90 * time.Second}, "Spaced(1m30s)"},
		{schedule.Spaced{Every: 1500 * time.Microsecond}, "Spaced(1.5ms)"},
		{schedule.Exponential{Base: 100 * time.Millisecond, FactorPct: 200, Cap: 30 * time.Second}, "Exponential(100ms, 200%, 30s)"},
		{schedule.Fibonacci{Base: time.Nanosecond}, "Fibonacci(1ns)"},
		{schedule.Jittered{Inner: schedule.Forever{}, LowPct: 0, HighPct: 1000}, "Jittered(Forever, 0%, 1000%)"},
		{schedule.Union{A: schedule.Times{N: 1}, B: schedule.Forever{}}, "Union(Times(1), Forever)"},
		{schedule.Intersect{A: schedule.Backoff(100*time.Millisecond, 30*time.Second), B: schedule.Times{N: 5}},
			"Intersect(Jittered(Exponential(100ms, 200%, 30s), 50%, 100%), Times(5))"},
		{schedule.AndThen{First: schedule.Times{N: 3}, Then: schedule.Spaced{Every: time.Minute}}, "AndThen(Times(3), Spaced(1m0s))"},
		{schedule.UpTo{Inner: schedule.Forever{}, Budget: 0}, "UpTo(Forever, 0s)"},
		{schedule.Capped{Inner: schedule.Forever{}, Max: schedule.MaxDuration}, "Capped(Forever, 2562047h47m16.854775807s)"},
		{schedule.Decorrelated{Base: time.Second, Cap: time.Hour}, "Decorrelated(1s, 1h0m0s)"},
		{schedule.FullJitter(time.Second, time.Minute), "Jittered(Exponential(1s, 200%, 1m0s), 0%, 100%)"},
		{schedule.Union{A: schedule.Times{N: 2}}, "Union(Times(2), <nil>)"},
	}
	for _, tt := range tests {
		if got := tt.s.String(); got != tt.want {
			t.Errorf("String() = %q; want %q", got, tt.want)
		}
		if got := string(schedule.AppendText([]byte("x:"), tt.s)); got != "x:"+tt.want {
			t.Errorf("AppendText = %q; want %q", got, "x:"+tt.want)
		}
		if got := fmt.Sprint(tt.s); got != tt.want {
			t.Errorf("Sprint = %q; want %q", got, tt.want)
		}
	}
}

func TestGoString(t *testing.T) {
	tests := []struct {
		s    schedule.Schedule
		want string
	}{
		{schedule.Spaced{Every: 90 * time.Second}, "schedule.Spaced{Every: 90*time.Second}"},
		{schedule.Spaced{Every: time.Hour}, "schedule.Spaced{Every: time.Hour}"},
		{schedule.Spaced{Every: 1500 * time.Microsecond}, "schedule.Spaced{Every: 1500*time.Microsecond}"},
		{schedule.Spaced{Every: 7}, "schedule.Spaced{Every: 7}"},
		{schedule.Forever{}, "schedule.Forever{}"},
		{schedule.UpTo{Inner: schedule.Times{N: 2}, Budget: 0}, "schedule.UpTo{Inner: schedule.Times{N: 2}, Budget: 0}"},
		{schedule.Capped{Inner: nil, Max: time.Minute}, "schedule.Capped{Inner: nil, Max: time.Minute}"},
		{schedule.AndThen{First: schedule.Times{N: 3}, Then: schedule.Decorrelated{Base: time.Millisecond, Cap: 2 * time.Second}},
			"schedule.AndThen{First: schedule.Times{N: 3}, Then: schedule.Decorrelated{Base: time.Millisecond, Cap: 2*time.Second}}"},
	}
	for _, tt := range tests {
		if got := fmt.Sprintf("%#v", tt.s); got != tt.want {
			t.Errorf("%%#v = %q; want %q", got, tt.want)
		}
		if got := schedule.GoString(tt.s); got != tt.want {
			t.Errorf("GoString = %q; want %q", got, tt.want)
		}
	}
}

func TestLogValue(t *testing.T) {
	var b strings.Builder
	log := slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
	log.Info("retrying", "policy", schedule.Intersect{A: schedule.Times{N: 2}, B: schedule.Forever{}})
	want := `level=INFO msg=retrying policy="Intersect(Times(2), Forever)"` + "\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("log line (-want +got):\n%s", diff)
	}
}

func TestValidate(t *testing.T) {
	ok := schedule.Times{N: 1}
	tests := []struct {
		s      schedule.Schedule
		want   string
		fields []string
	}{
		{nil, "missing schedule", nil},
		{schedule.Times{N: 0}, "Times: n 0 is below 1", nil},
		{schedule.Spaced{}, "Spaced: every 0s is not positive", nil},
		{schedule.Spaced{Every: -time.Second}, "Spaced: every -1s is not positive", nil},
		{schedule.Exponential{Base: 0, FactorPct: 200, Cap: 1}, "Exponential: base 0s is not positive", nil},
		{schedule.Exponential{Base: 1, FactorPct: 99, Cap: 1}, "Exponential: factor 99% is below 100%", nil},
		{schedule.Exponential{Base: 1, FactorPct: 100, Cap: 0}, "Exponential: cap 0s is not positive", nil},
		{schedule.Fibonacci{}, "Fibonacci: base 0s is not positive", nil},
		{schedule.Decorrelated{Base: 1}, "Decorrelated: cap 0s is not positive", nil},
		{schedule.Decorrelated{Cap: 1}, "Decorrelated: base 0s is not positive", nil},
		{schedule.Jittered{Inner: ok, LowPct: -1, HighPct: 5}, "Jittered: low -1% is below 0%", nil},
		{schedule.Jittered{Inner: ok, LowPct: 1, HighPct: 1001}, "Jittered: high 1001% is above 1000%", nil},
		{schedule.Jittered{Inner: nil, LowPct: 1, HighPct: 1}, "Jittered.Inner: missing schedule", []string{"Inner"}},
		{schedule.UpTo{Inner: ok, Budget: -1}, "UpTo: budget -1ns is negative", nil},
		{schedule.Capped{Inner: ok, Max: -time.Minute}, "Capped: max -1m0s is negative", nil},
		{schedule.Intersect{A: schedule.Jittered{Inner: ok, LowPct: 120, HighPct: 100}, B: schedule.Times{N: 5}},
			"Intersect.A.Jittered: low 120% above high 100%", []string{"A"}},
		{schedule.AndThen{First: ok, Then: schedule.Union{A: ok, B: schedule.Capped{Inner: schedule.Spaced{}, Max: 1}}},
			"AndThen.Then.Union.B.Capped.Inner.Spaced: every 0s is not positive", []string{"Then", "B", "Inner"}},
		{schedule.Union{A: schedule.Times{N: -3}, B: schedule.Spaced{}}, "Union.A.Times: n -3 is below 1", []string{"A"}},
	}
	for _, tt := range tests {
		err := schedule.Validate(tt.s)
		var e *schedule.Error
		if !errors.As(err, &e) {
			t.Errorf("Validate(%v) = %v; want a *schedule.Error", tt.s, err)
			continue
		}
		if e.Error() != tt.want {
			t.Errorf("Validate(%v) = %q; want %q", tt.s, e.Error(), tt.want)
		}
		if diff := cmp.Diff(tt.fields, e.Fields); diff != "" {
			t.Errorf("Validate(%v).Fields (-want +got):\n%s", tt.s, diff)
		}
	}
}

func TestValidateAcceptsEdges(t *testing.T) {
	for _, s := range []schedule.Schedule{
		schedule.Times{N: math.MaxInt},
		schedule.Spaced{Every: 1},
		schedule.Exponential{Base: schedule.MaxDuration, FactorPct: math.MaxInt32, Cap: 1},
		schedule.Jittered{Inner: schedule.Forever{}, LowPct: 0, HighPct: 0},
		schedule.Jittered{Inner: schedule.Forever{}, LowPct: 1000, HighPct: 1000},
		schedule.UpTo{Inner: schedule.Forever{}, Budget: 0},
		schedule.Capped{Inner: schedule.Forever{}, Max: 0},
		schedule.Decorrelated{Base: time.Hour, Cap: time.Second},
	} {
		if err := schedule.Validate(s); err != nil {
			t.Errorf("Validate(%v) = %v; want nil", s, err)
		}
	}
}

func TestComparable(t *testing.T) {
	a := schedule.Intersect{A: schedule.Backoff(100*time.Millisecond, 30*time.Second), B: schedule.Times{N: 5}}
	b := schedule.Intersect{A: schedule.Backoff(100*time.Millisecond, 30*time.Second), B: schedule.Times{N: 5}}
	c := schedule.Intersect{A: schedule.Backoff(100*time.Millisecond, 30*time.Second), B: schedule.Times{N: 6}}
	if a != b || !schedule.Equal(a, b) || schedule.Equal(a, c) {
		t.Error("structural equality does not hold")
	}
	seen := map[schedule.Schedule]int{a: 1}
	if seen[b] != 1 || seen[c] != 0 {
		t.Error("schedules do not work as map keys")
	}
}

func TestChildren(t *testing.T) {
	x, y := schedule.Times{N: 2}, schedule.Forever{}
	tests := []struct {
		s    schedule.Schedule
		a, b schedule.Schedule
	}{
		{schedule.Union{A: x, B: y}, x, y},
		{schedule.Intersect{A: y, B: x}, y, x},
		{schedule.AndThen{First: x, Then: y}, x, y},
		{schedule.Jittered{Inner: x}, x, nil},
		{schedule.UpTo{Inner: y}, y, nil},
		{schedule.Capped{Inner: x}, x, nil},
		{schedule.Spaced{Every: 1}, nil, nil},
	}
	for _, tt := range tests {
		a, b := schedule.Children(tt.s)
		if a != tt.a || b != tt.b {
			t.Errorf("Children(%v) = %v, %v; want %v, %v", tt.s, a, b, tt.a, tt.b)
		}
	}
}

// wrapper embeds a schedule the way parse.Policy does.
type wrapper struct{ schedule.Schedule }

func TestValidateRejectsWrappers(t *testing.T) {
	w := wrapper{schedule.Times{N: 3}}
	want := "schedule_test.wrapper is not a schedule variant; pass the schedule it holds (for a parse.Policy p, p.Schedule)"
	if err := schedule.Validate(w); err == nil || err.Error() != want {
		t.Errorf("Validate(wrapper) = %v; want %q", err, want)
	}
	err := schedule.Validate(schedule.Union{A: schedule.Forever{}, B: w})
	if err == nil || err.Error() != "Union.B: "+want {
		t.Errorf("Validate(Union with a wrapper) = %v", err)
	}
	if n := testing.AllocsPerRun(100, func() { schedule.Validate(schedule.Times{N: 3}) }); n != 0 {
		t.Errorf("Validate of a valid schedule allocates %v times", n)
	}
}
