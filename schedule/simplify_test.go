package schedule_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/schedule"
	"pgregory.net/rapid"
)

// Shorthands for the Simplify and Bounds tables.
type (
	times     = schedule.Times
	spaced    = schedule.Spaced
	forever   = schedule.Forever
	union     = schedule.Union
	intersect = schedule.Intersect
	andThen   = schedule.AndThen
	upTo      = schedule.UpTo
	capped    = schedule.Capped
	jittered  = schedule.Jittered
	expo      = schedule.Exponential
)

func TestSimplify(t *testing.T) {
	const ms = time.Millisecond
	// Three schedules that stop, none of them Times, in String order.
	a := intersect{expo{100 * ms, 200, 30 * time.Second, 0}, times{3}}
	b := intersect{spaced{time.Second}, times{2}}
	c := upTo{schedule.Backoff(ms, time.Second), time.Minute}
	if !(a.String() < b.String() && b.String() < c.String()) {
		t.Fatalf("a, b, c out of order: %v, %v, %v", a, b, c)
	}
	tests := []struct {
		name    string
		in, out schedule.Schedule
	}{
		{"leaf", spaced{time.Second}, spaced{time.Second}},
		{"Union of Times is the largest", union{times{3}, times{5}}, times{5}},
		{"Intersect of Times is the smallest", intersect{times{3}, times{5}}, times{3}},
		{"AndThen of Times adds", andThen{times{2}, times{3}}, times{4}},
		{"AndThen of Times that would overflow", andThen{times{math.MaxInt}, times{2}}, andThen{times{math.MaxInt}, times{2}}},
		{"Union ordered", union{b, a}, union{a, b}},
		{"Intersect ordered", intersect{c, b}, intersect{b, c}},
		{"Union flattened, ordered, nested left", union{union{c, a}, b}, union{union{a, b}, c}},
		{"Intersect nested left", intersect{spaced{3}, intersect{spaced{1}, spaced{2}}}, intersect{intersect{spaced{1}, spaced{2}}, spaced{3}}},
		{"Intersect flattened", intersect{a, intersect{b, c}}, intersect{intersect{intersect{a.A, b.A}, times{2}}, c}},
		{"Union idempotent", union{a, a}, a},
		{"Intersect idempotent", intersect{b, b}, b},
		{"equal operands after ordering", intersect{union{a, b}, union{b, a}}, union{a, b}},
		{"Union identity", union{a, times{1}}, a},
		{"Intersect identity", intersect{forever{}, a}, a},
		{"Union absorbed", union{a, forever{}}, forever{}},
		{"Intersect absorbed", intersect{a, times{1}}, times{1}},
		{"Union of Times keeps the rest", union{union{times{2}, a}, times{4}}, union{a, times{4}}},
		{"AndThen right-nested", andThen{andThen{a, b}, c}, andThen{a, andThen{b, c}}},
		{"AndThen left identity", andThen{times{1}, a}, a},
		{"AndThen right identity", andThen{a, times{1}}, a},
		{"AndThen identity inside a chain", andThen{a, andThen{times{1}, b}}, andThen{a, b}},
		{"AndThen merges adjacent Times only", andThen{times{2}, andThen{a, andThen{times{2}, times{3}}}}, andThen{times{2}, andThen{a, times{4}}}},
		{"AndThen after a part that never stops", andThen{spaced{time.Minute}, times{3}}, spaced{time.Minute}},
		{"AndThen chain cut after a part that never stops", andThen{a, andThen{union{b, forever{}}, c}}, andThen{a, forever{}}},
		{"UpTo of UpTo", upTo{upTo{a, time.Minute}, 30 * time.Second}, upTo{a, 30 * time.Second}},
		{"UpTo of UpTo, outer smaller", upTo{upTo{a, time.Second}, time.Minute}, upTo{a, time.Second}},
		{"UpTo of MaxDuration", upTo{a, schedule.MaxDuration}, a},
		{"UpTo of Times(1)", upTo{times{1}, 0}, times{1}},
		{"UpTo of Times kept", upTo{times{3}, time.Second}, upTo{times{3}, time.Second}},
		{"UpTo of Forever kept", upTo{forever{}, time.Second}, upTo{forever{}, time.Second}},
		{"UpTo not merged across AndThen", andThen{times{2}, upTo{upTo{a, time.Second}, time.Minute}}, andThen{times{2}, upTo{a, time.Second}}},
		{"Capped of Capped", capped{capped{a, time.Second}, 2 * time.Second}, capped{a, time.Second}},
		{"Capped that never bites", capped{expo{100 * ms, 200, 30 * time.Second, 0}, time.Minute}, expo{100 * ms, 200, 30 * time.Second, 0}},
		{"Capped at the cap", capped{expo{100 * ms, 200, 30 * time.Second, 0}, 30 * time.Second}, expo{100 * ms, 200, 30 * time.Second, 0}},
		{"Capped that bites", capped{expo{100 * ms, 200, 30 * time.Second, 0}, time.Second}, capped{expo{100 * ms, 200, 30 * time.Second, 0}, time.Second}},
		{"Capped of Forever", capped{forever{}, time.Second}, forever{}},
		{"Capped of a zero-delay composite", capped{andThen{times{3}, forever{}}, 0}, andThen{times{3}, forever{}}},
		{"Jittered at 100%", jittered{a, 100, 100, 0, 0}, a},
		{"Jittered of Times", jittered{times{3}, 0, 100, 0, 0}, times{3}},
		{"Jittered of Capped at zero", jittered{capped{spaced{time.Second}, 0}, 50, 100, 0, 0}, capped{spaced{time.Second}, 0}},
		{"Jittered kept", schedule.Backoff(ms, time.Second), schedule.Backoff(ms, time.Second)},
		{"Jittered of Jittered kept", jittered{jittered{b, 50, 100, 0, 0}, 50, 100, 0, 0}, jittered{jittered{b, 50, 100, 0, 0}, 50, 100, 0, 0}},
		{"simplified inside a Jittered", jittered{union{spaced{time.Second}, times{1}}, 0, 100, 0, 0}, jittered{spaced{time.Second}, 0, 100, 0, 0}},
		{"the doc example", union{intersect{times{3}, forever{}}, andThen{andThen{times{2}, times{1}}, times{4}}}, times{5}},
		{"invalid unchanged", union{times{0}, times{0}}, union{times{0}, times{0}}},
		{"invalid deep unchanged", union{a, jittered{a, 100, 50, 0, 0}}, union{a, jittered{a, 100, 50, 0, 0}}},
		{"nil unchanged", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := schedule.Simplify(tt.in)
			if diff := cmp.Diff(tt.out, got); diff != "" {
				t.Errorf("Simplify(%v) (-want +got):\n%s", tt.in, diff)
			}
			if again := schedule.Simplify(got); again != got {
				t.Errorf("Simplify(%v) = %v, not a fixed point", got, again)
			}
		})
	}
}

// size counts the nodes of s.
func size(s schedule.Schedule) int {
	if s == nil {
		return 0
	}
	a, b := schedule.Children(s)
	return 1 + size(a) + size(b)
}

func TestPropSimplifyIsValidAndNoLarger(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSchedule().Draw(t, "s")
		got := schedule.Simplify(s)
		if err := schedule.Validate(got); err != nil {
			t.Fatalf("Simplify(%v) = %v: %v", s, got, err)
		}
		if size(got) > size(s) {
			t.Fatalf("Simplify(%v) = %v, larger", s, got)
		}
	})
}

// TestPropSimplifyIsCanonical checks that the spellings that the laws of
// commutativity and associativity equate simplify to == values.
func TestPropSimplifyIsCanonical(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genSchedule()
		a, b, c := g.Draw(t, "a"), g.Draw(t, "b"), g.Draw(t, "c")
		pairs := [][2]schedule.Schedule{
			{union{a, b}, union{b, a}},
			{intersect{a, b}, intersect{b, a}},
			{union{union{a, b}, c}, union{a, union{b, c}}},
			{intersect{intersect{a, b}, c}, intersect{a, intersect{b, c}}},
			{andThen{andThen{a, b}, c}, andThen{a, andThen{b, c}}},
			{union{a, a}, a},
			{intersect{a, a}, a},
		}
		for _, p := range pairs {
			if x, y := schedule.Simplify(p[0]), schedule.Simplify(p[1]); x != y {
				t.Fatalf("%v simplifies to %v\n%v simplifies to %v", p[0], x, p[1], y)
			}
		}
	})
}

func ExampleSimplify() {
	s := schedule.Union{
		A: schedule.Intersect{A: schedule.Times{N: 5}, B: schedule.Backoff(100*time.Millisecond, 30*time.Second)},
		B: schedule.Intersect{A: schedule.Backoff(100*time.Millisecond, 30*time.Second), B: schedule.Times{N: 3}},
	}
	fmt.Println(schedule.Simplify(s))

	s2 := schedule.AndThen{
		First: schedule.AndThen{First: schedule.Times{N: 2}, Then: schedule.Times{N: 3}},
		Then:  schedule.UpTo{Inner: schedule.UpTo{Inner: schedule.Spaced{Every: time.Minute}, Budget: time.Hour}, Budget: 10 * time.Minute},
	}
	fmt.Println(schedule.Simplify(s2))
	// Output:
	// Union(Intersect(Jittered(Exponential(100ms, 200%, 30s), 50%, 100%), Times(3)), Intersect(Jittered(Exponential(100ms, 200%, 30s), 50%, 100%), Times(5)))
	// AndThen(Times(4), UpTo(Spaced(1m0s), 10m0s))
}

// BenchmarkSimplifyChain simplifies a Union chain of 500 operands that is
// already in normal form, as Bounds does with every simplified policy.
func BenchmarkSimplifyChain(b *testing.B) {
	var s schedule.Schedule = schedule.Spaced{Every: time.Millisecond}
	for i := 2; i <= 500; i++ {
		s = schedule.Union{A: s, B: schedule.Spaced{Every: time.Duration(i) * time.Millisecond}}
	}
	s = schedule.Simplify(s)
	b.ReportAllocs()
	for b.Loop() {
		schedule.Simplify(s)
	}
}
