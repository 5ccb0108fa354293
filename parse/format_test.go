package parse_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

func TestFormatInfix(t *testing.T) {
	var (
		t1, t2, t3 = schedule.Times{N: 1}, schedule.Times{N: 2}, schedule.Times{N: 3}
		exp        = schedule.Exponential{Base: 100 * time.Millisecond, FactorPct: 200, Cap: 30 * time.Second}
	)
	tests := []struct {
		name string
		s    schedule.Schedule
		want string
	}{
		{"nil", nil, "<nil>"},
		{"leaves", schedule.Intersect{A: schedule.Spaced{Every: time.Minute}, B: schedule.Union{A: schedule.Fibonacci{Base: time.Second}, B: schedule.Decorrelated{Base: time.Second, Cap: time.Minute}}},
			"spaced(1m0s) & (fibonacci(1s) | decorrelated(1s, 1m0s))"},
		{"backoff", schedule.Backoff(time.Second, time.Minute), "backoff(1s, 1m0s)"},
		{"fulljitter", schedule.FullJitter(time.Second, time.Minute), "fulljitter(1s, 1m0s)"},
		{"not backoff: factor", schedule.Jittered{Inner: schedule.Exponential{Base: 1, FactorPct: 300, Cap: 2}, LowPct: 50, HighPct: 100},
			"jittered(exponential(1ns, 300%, 2ns), 50%, 100%)"},
		{"not backoff: jitter", schedule.Jittered{Inner: exp, LowPct: 50, HighPct: 150},
			"jittered(exponential(100ms, 200%, 30s), 50%, 150%)"},
		{"& left chain", schedule.Intersect{A: schedule.Intersect{A: t1, B: t2}, B: t3}, "times(1) & times(2) & times(3)"},
		{"& right nested", schedule.Intersect{A: t1, B: schedule.Intersect{A: t2, B: t3}}, "times(1) & (times(2) & times(3))"},
		{"| left chain", schedule.Union{A: schedule.Union{A: t1, B: t2}, B: t3}, "times(1) | times(2) | times(3)"},
		{"| right nested", schedule.Union{A: t1, B: schedule.Union{A: t2, B: t3}}, "times(1) | (times(2) | times(3))"},
		{"& under |", schedule.Union{A: schedule.Intersect{A: t1, B: t2}, B: schedule.Intersect{A: t2, B: t3}}, "times(1) & times(2) | times(2) & times(3)"},
		{"| under &", schedule.Intersect{A: schedule.Union{A: t1, B: t2}, B: t3}, "(times(1) | times(2)) & times(3)"},
		{"then right chain", schedule.AndThen{First: t1, Then: schedule.AndThen{First: t2, Then: t3}}, "times(1) then times(2) then times(3)"},
		{"then left nested", schedule.AndThen{First: schedule.AndThen{First: t1, Then: t2}, Then: t3}, "(times(1) then times(2)) then times(3)"},
		{"| under then", schedule.AndThen{First: schedule.Union{A: t1, B: t2}, Then: t3}, "times(1) | times(2) then times(3)"},
		{"then under |", schedule.Union{A: schedule.AndThen{First: t1, Then: t2}, B: t3}, "(times(1) then times(2)) | times(3)"},
		{"upto", schedule.UpTo{Inner: schedule.AndThen{First: t1, Then: t2}, Budget: time.Second}, "times(1) then times(2) upto 1s"},
		{"upto nested", schedule.UpTo{Inner: schedule.UpTo{Inner: schedule.Forever{}, Budget: 2 * time.Second}, Budget: time.Second}, "(forever upto 2s) upto 1s"},
		{"upto under &", schedule.Intersect{A: schedule.UpTo{Inner: t1, Budget: 0}, B: t2}, "(times(1) upto 0s) & times(2)"},
		{"upto under then", schedule.AndThen{First: t1, Then: schedule.UpTo{Inner: t2, Budget: time.Second}}, "times(1) then (times(2) upto 1s)"},
		{"arguments take whole policies", schedule.Capped{Inner: schedule.UpTo{Inner: schedule.Union{A: t1, B: t2}, Budget: time.Second}, Max: time.Minute},
			"capped(times(1) | times(2) upto 1s, 1m0s)"},
		{"jittered inner infix", schedule.Jittered{Inner: schedule.Intersect{A: t1, B: schedule.Forever{}}, LowPct: 0, HighPct: 1000},
			"jittered(times(1) & forever, 0%, 1000%)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parse.Format(tt.s, parse.Infix)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("Format (-want +got):\n%s", diff)
			}
			if tt.s == nil {
				return
			}
			back, err := parse.Parse(got)
			if err != nil {
				t.Fatalf("Parse(%q): %v", got, err)
			}
			if diff := cmp.Diff(tt.s, back); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", got, diff)
			}
		})
	}
}

func TestFormatCanonical(t *testing.T) {
	s := schedule.Intersect{A: schedule.Backoff(100*time.Millisecond, 30*time.Second), B: schedule.Times{N: 5}}
	const want = "Intersect(Jittered(Exponential(100ms, 200%, 30s), 50%, 100%), Times(5))"
	if diff := cmp.Diff(want, parse.Format(s, parse.Canonical)); diff != "" {
		t.Errorf("Format (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("log: "+want, string(parse.AppendFormat([]byte("log: "), s, parse.Canonical))); diff != "" {
		t.Errorf("AppendFormat (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("<nil>", parse.Format(nil, parse.Canonical)); diff != "" {
		t.Errorf("Format(nil) (-want +got):\n%s", diff)
	}
	if got := parse.Canonical.String() + " " + parse.Infix.String(); got != "Canonical Infix" {
		t.Errorf("Style names = %q", got)
	}
}
