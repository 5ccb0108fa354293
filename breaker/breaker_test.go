package breaker_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

// call makes one call through b that ends with v, and returns the error
// Allow gave (nil if the call went through).
func call(b *breaker.Breaker, v verdict.Verdict) error {
	p, err := b.Allow()
	if err != nil {
		return err
	}
	b.Record(&p, v)
	return nil
}

func newBreaker(t *testing.T, c breaker.Config) (*breaker.Breaker, *clockcap.VirtualClock) {
	t.Helper()
	clock := clockcap.Virtual(epoch)
	c.Clock = clock
	if c.Random == nil {
		c.Random = randcap.Seeded(1)
	}
	b, err := breaker.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return b, clock
}

func openError(t *testing.T, err error) *breaker.OpenError {
	t.Helper()
	var oe *breaker.OpenError
	if !errors.As(err, &oe) || !errors.Is(err, breaker.ErrOpen) {
		t.Fatalf("error %v (%T) is not an *OpenError matching ErrOpen", err, err)
	}
	return oe
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		c    breaker.Config
		want string
	}{
		{breaker.Config{FailureRate: 101}, "Config.FailureRate = 101"},
		{breaker.Config{SlowCall: -time.Second}, "Config.SlowCall = -1s"},
		{breaker.Config{SlowRate: -1}, "Config.SlowRate = -1"},
		{breaker.Config{SlowRate: 101}, "Config.SlowRate = 101"},
		{breaker.Config{MinCalls: -1}, "Config.MinCalls = -1"},
		{breaker.Config{Window: 9}, "Config.Window = 9ns is shorter than 10ns"},
		{breaker.Config{Window: -time.Second}, "Config.Window = -1s is negative"},
		{breaker.Config{HalfOpenProbes: -1}, "Config.HalfOpenProbes = -1"},
		{breaker.Config{HalfOpenProbes: 1001}, "Config.HalfOpenProbes = 1001"},
		{breaker.Config{OpenFor: schedule.Spaced{}}, "Config.OpenFor"},
		{breaker.Config{OpenFor: schedule.Times{N: 1}}, "OpenFor stops before its first delay"},
	}
	for _, tt := range tests {
		b, err := breaker.New(tt.c)
		if err == nil || !strings.Contains(err.Error(), tt.want) || b != nil {
			t.Errorf("New(%+v) = %v, %v; want an error containing %q", tt.c, b, err, tt.want)
		}
		if _, err := breaker.NewRegistry(tt.c, 0); err == nil {
			t.Errorf("NewRegistry(%+v) accepted a bad config", tt.c)
		}
	}
	if _, err := breaker.NewRegistry(breaker.Config{}, -1); err == nil {
		t.Error("NewRegistry with a negative cap succeeded")
	}
}

// The Circuit Breaker pattern's promise: a breaker opens after N consecutive failures,
// and then refuses at once: the downstream sees zero calls while it is
// open.
func TestOpensAfterConsecutiveFailuresAndFailsFast(t *testing.T) {
	b, clock := newBreaker(t, breaker.Config{Name: "db"})
	downstream := 0
	attempt := func() error {
		p, err := b.Allow()
		if err != nil {
			return err
		}
		downstream++
		b.Record(&p, verdict.Transient)
		return errors.New("connection refused")
	}
	for i := range 4 {
		attempt()
		if s := b.State(); s != breaker.Closed {
			t.Fatalf("after %d failures the breaker is %v; want closed", i+1, s)
		}
	}
	attempt()
	if s := b.State(); s != breaker.Open {
		t.Fatalf("after 5 failures the breaker is %v; want open", s)
	}
	clock.Advance(4 * time.Second)
	for range 100 {
		err := attempt()
		oe := openError(t, err)
		if d, ok := oe.Remaining(clock.Now()); d != time.Second || !ok {
			t.Fatalf("Remaining = %v, %v; want 1s, true", d, ok)
		}
	}
	if downstream != 5 {
		t.Errorf("downstream saw %d calls; want 5, none while open", downstream)
	}
	st := b.Stats()
	if diff := cmp.Diff(breaker.Stats{State: breaker.Open, Opened: 1, Rejected: 100, Failures: 5}, st); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
}

func TestSuccessBreaksTheStreak(t *testing.T) {
	b, _ := newBreaker(t, breaker.Config{ConsecutiveFailures: 3, FailureRate: -1})
	for _, v := range []verdict.Verdict{verdict.Failure, verdict.Transient, verdict.Success, verdict.Failure, verdict.Failure} {
		call(b, v)
	}
	if s := b.State(); s != breaker.Closed {
		t.Fatalf("state %v after F F S F F; want closed", s)
	}
	// Outcomes that count nothing do not break the streak.
	call(b, verdict.Retryable)
	call(b, verdict.Neutral)
	call(b, verdict.Failure)
	if s := b.State(); s != breaker.Open {
		t.Fatalf("state %v after F F S F F R N F; want open", s)
	}
}

func TestFailureRate(t *testing.T) {
	b, clock := newBreaker(t, breaker.Config{ConsecutiveFailures: -1, MinCalls: 10, FailureRate: 50})
	// 9 calls, 6 failing: too few calls to judge.
	for i := range 9 {
		v := verdict.Success
		if i%3 != 0 {
			v = verdict.Failure
		}
		call(b, v)
	}
	if s := b.State(); s != breaker.Closed {
		t.Fatalf("state %v below MinCalls; want closed", s)
	}
	// The window forgets: 10 s later the 9 calls are gone.
	clock.Advance(10 * time.Second)
	call(b, verdict.Failure)
	if st := b.Stats(); st.WindowCalls != 1 || st.State != breaker.Closed {
		t.Fatalf("after the window slid: %+v; want 1 call in the window, closed", st)
	}
	for range 4 {
		call(b, verdict.Success)
	}
	for range 4 {
		call(b, verdict.Failure)
	}
	if s := b.State(); s != breaker.Closed {
		t.Fatalf("state %v at 5 failures in 9 calls; want closed", s)
	}
	call(b, verdict.Success) // 10 calls, 5 failed: a success is judged too
	if s := b.State(); s != breaker.Open {
		t.Fatalf("state %v at 5 failures in 10 calls; want open", s)
	}
}

func TestSlowCalls(t *testing.T) {
	b, clock := newBreaker(t, breaker.Config{SlowCall: time.Second, SlowRate: 50, MinCalls: 4})
	slow := func(v verdict.Verdict, d time.Duration) {
		p, err := b.Allow()
		if err != nil {
			t.Fatal(err)
		}
		clock.Advance(d)
		b.Record(&p, v)
	}
	slow(verdict.Success, 999*time.Millisecond) // not slow
	slow(verdict.Success, time.Second)          // slow
	slow(verdict.Neutral, 2*time.Second)        // counts nothing
	slow(verdict.Success, 10*time.Millisecond)
	if st := b.Stats(); st.Slow != 1 || st.State != breaker.Closed {
		t.Fatalf("after 3 counted calls, 1 slow: %+v", st)
	}
	slow(verdict.Success, 2*time.Second) // 4 calls, 2 slow: 50%
	if st := b.Stats(); st.Slow != 2 || st.State != breaker.Open || st.Failures != 0 {
		t.Fatalf("after 4 calls, 2 slow: %+v; want open with no failures", st)
	}
	// A slow probe counts as a failed probe.
	clock.Advance(5 * time.Second)
	slow(verdict.Success, 3*time.Second)
	if s := b.State(); s != breaker.Open {
		t.Fatalf("after a slow probe the state is %v; want open", s)
	}
}

// The open duration follows the schedule, grows
// with each failed probe and starts again once the breaker closes.
func TestOpenDurationFollowsScheduleAndResets(t *testing.T) {
	b, clock := newBreaker(t, breaker.Config{ConsecutiveFailures: 1})
	var opens []time.Duration
	openFor := func() time.Duration {
		_, err := b.Allow()
		return openError(t, err).For
	}
	call(b, verdict.Failure)
	for range 6 {
		d := openFor()
		opens = append(opens, d)
		clock.Advance(d - time.Nanosecond)
		if err := call(b, verdict.Success); err == nil {
			t.Fatalf("a call went through %v into a %v opening", d-time.Nanosecond, d)
		}
		clock.Advance(time.Nanosecond)
		if err := call(b, verdict.Failure); err != nil { // the probe, failing
			t.Fatalf("probe refused: %v", err)
		}
	}
	want := []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second, 40 * time.Second, time.Minute, time.Minute}
	if diff := cmp.Diff(want, opens); diff != "" {
		t.Errorf("open durations (-want +got):\n%s", diff)
	}
	clock.Advance(time.Minute)
	if err := call(b, verdict.Success); err != nil || b.State() != breaker.Closed {
		t.Fatalf("a successful probe left the breaker %v (%v)", b.State(), err)
	}
	call(b, verdict.Failure)
	if d := openFor(); d != 5*time.Second {
		t.Errorf("after closing, the next opening lasts %v; want 5s again", d)
	}
}

func TestHalfOpenProbes(t *testing.T) {
	b, clock := newBreaker(t, breaker.Config{ConsecutiveFailures: 1, HalfOpenProbes: 2})
	call(b, verdict.Failure)
	clock.Advance(5 * time.Second)
	p1, err1 := b.Allow()
	p2, err2 := b.Allow()
	_, err3 := b.Allow()
	if err1 != nil || err2 != nil {
		t.Fatalf("probes refused: %v, %v", err1, err2)
	}
	if oe := openError(t, err3); oe.State != breaker.HalfOpen || !oe.Until.Equal(clock.Now()) {
		t.Errorf("third call: %+v; want a half-open refusal since now", oe)
	} else if d, ok := oe.Remaining(clock.Now()); d != 0 || !ok {
		t.Errorf("half-open Remaining = %v, %v; want 0, true", d, ok)
	}
	// A probe that counts nothing frees its place.
	b.Record(&p1, verdict.Neutral)
	p3, err := b.Allow()
	if err != nil {
		t.Fatalf("no place after a neutral probe: %v", err)
	}
	b.Record(&p2, verdict.Success)
	if s := b.State(); s != breaker.HalfOpen {
		t.Fatalf("one of two probes succeeded: state %v; want half-open", s)
	}
	b.Record(&p3, verdict.Success)
	if s := b.State(); s != breaker.Closed {
		t.Fatalf("both probes succeeded: state %v; want closed", s)
	}
}

// Resilience4j's CircuitBreakerStateMachineTest, half-open with 4
// permitted calls and 50% thresholds: the probes decide by their failure
// and slow-call rates once all 4 are recorded.
func TestHalfOpenDecidesByRates(t *testing.T) {
	const F, S, L = verdict.Failure, verdict.Success, verdict.Verdict(100) // L: a slow success
	tests := []struct {
		name   string
		probes []verdict.Verdict
		want   breaker.State
	}{
		{"shouldTransitionBackToOpenStateWhenFailureRateIsAboveThreshold", []verdict.Verdict{F, F, S, F}, breaker.Open},
		{"shouldTransitionBackToClosedStateWhenFailureIsBelowThreshold", []verdict.Verdict{F, S, S, S}, breaker.Closed},
		{"shouldTransitionBackToOpenStateWhenSlowCallRateIsAboveThreshold", []verdict.Verdict{L, L, L, S}, breaker.Open},
		{"half the probes failing reaches 50%", []verdict.Verdict{S, F, S, F}, breaker.Open},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, clock := newBreaker(t, breaker.Config{ConsecutiveFailures: 1, HalfOpenProbes: 4, SlowCall: 4 * time.Second, SlowRate: 50})
			call(b, verdict.Failure)
			clock.Advance(5 * time.Second)
			for i, v := range tt.probes {
				if s := b.State(); i > 0 && s != breaker.HalfOpen {
					t.Fatalf("after %d of 4 probes: %v; want half-open until all are recorded", i, s)
				}
				p, err := b.Allow()
				if err != nil {
					t.Fatalf("probe %d refused: %v", i+1, err)
				}
				if v == L {
					clock.Advance(5 * time.Second)
					v = S
				}
				b.Record(&p, v)
			}
			if s := b.State(); s != tt.want {
				t.Errorf("after probes %v: %v; want %v", tt.probes, s, tt.want)
			}
		})
	}
}

// The acceptance case of the brief for Resilience4j's model: with 10
// probes and a 50% threshold, 9 successes and 1 failure close the breaker
// (a breaker that needs every probe to succeed reopens).
func TestNineOfTenProbesClose(t *testing.T) {
	b, clock := newBreaker(t, breaker.Config{ConsecutiveFailures: 1, HalfOpenProbes: 10})
	call(b, verdict.Failure)
	clock.Advance(5 * time.Second)
	for i := range 10 {
		v := verdict.Success
		if i == 3 {
			v = verdict.Transient
		}
		if err := call(b, v); err != nil {
			t.Fatalf("probe %d: %v", i+1, err)
		}
	}
	if s := b.State(); s != breaker.Closed {
		t.Errorf("9 of 10 probes succeeded: %v; want closed", s)
	}
}

// Resilience4j's shouldReleasePermissionWhenExceptionIgnored: an outcome
// that counts nothing frees the probe's place, and the 4th counted probe
// decides (3 successes, 1 failure: 25%, closed).
func TestIgnoredProbeFreesItsPlace(t *testing.T) {
	b, clock := newBreaker(t, breaker.Config{ConsecutiveFailures: 1, HalfOpenProbes: 4})
	call(b, verdict.Failure)
	clock.Advance(5 * time.Second)
	for _, v := range []verdict.Verdict{verdict.Success, verdict.Success, verdict.Success, verdict.Neutral} {
		if err := call(b, v); err != nil {
			t.Fatal(err)
		}
	}
	if s := b.State(); s != breaker.HalfOpen {
		t.Fatalf("3 counted probes of 4: %v; want half-open", s)
	}
	if err := call(b, verdict.Failure); err != nil {
		t.Fatal(err)
	}
	if s := b.State(); s != breaker.Closed {
		t.Errorf("3 successes and 1 failure: %v; want closed", s)
	}
}

// Recording a probe's Permit twice neither closes the breaker early nor
// frees a second place; it is counted in Stats and logged at Debug.
func TestDoubleRecordOfAProbe(t *testing.T) {
	var buf bytes.Buffer
	b, clock := newBreaker(t, breaker.Config{Name: "db", ConsecutiveFailures: 1, HalfOpenProbes: 2, Logger: textLogger(&buf)})
	call(b, verdict.Failure)
	clock.Advance(5 * time.Second)
	p1, _ := b.Allow()
	p2, _ := b.Allow()
	b.Record(&p1, verdict.Success)
	b.Record(&p1, verdict.Success) // would close the breaker with p2 in flight
	if s := b.State(); s != breaker.HalfOpen {
		t.Fatalf("one probe recorded twice: %v; want half-open", s)
	}
	b.Record(&p1, verdict.Neutral) // would free p2's place
	if _, err := b.Allow(); err == nil {
		t.Fatal("a probe recorded twice freed a place")
	}
	b.Record(&p2, verdict.Failure)
	st := b.Stats()
	if diff := cmp.Diff(breaker.Stats{State: breaker.Open, Opened: 2, Rejected: 1, Successes: 1, Failures: 2, Duplicates: 2}, st); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
	if got := strings.Count(buf.String(), `level=DEBUG msg="circuit breaker permit recorded twice; ignored" breaker=db`); got != 2 {
		t.Errorf("%d debug records of a double Record; want 2:\n%s", got, buf.String())
	}
}

// Recording a closed breaker's Permit twice counts it once: a second
// failure would open a breaker that one failure leaves closed.
func TestDoubleRecordWhileClosed(t *testing.T) {
	var buf bytes.Buffer
	b, _ := newBreaker(t, breaker.Config{Name: "db", ConsecutiveFailures: 2, Logger: textLogger(&buf)})
	p, err := b.Allow()
	if err != nil {
		t.Fatal(err)
	}
	b.Record(&p, verdict.Failure)
	b.Record(&p, verdict.Failure)
	b.Record(&p, verdict.Success)
	if p == (breaker.Permit{}) {
		t.Error("Record left the zero Permit behind: a second Record could not tell it from a permit never given")
	}
	want := breaker.Stats{State: breaker.Closed, Failures: 1, WindowCalls: 1, WindowFailures: 1, Duplicates: 2}
	if diff := cmp.Diff(want, b.Stats()); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
	if got := strings.Count(buf.String(), `msg="circuit breaker permit recorded twice; ignored" breaker=db`); got != 2 {
		t.Errorf("%d debug records of a double Record; want 2:\n%s", got, buf.String())
	}
	var zero breaker.Permit
	b.Record(&zero, verdict.Failure)
	b.Record(nil, verdict.Failure)
	if st := b.Stats(); st.Failures != 1 || st.Duplicates != 2 {
		t.Errorf("the zero and nil Permits counted: %+v", st)
	}
}

// A call admitted before a transition says nothing about the new state.
func TestStaleOutcomesCountNothing(t *testing.T) {
	b, clock := newBreaker(t, breaker.Config{ConsecutiveFailures: 2})
	old := make([]breaker.Permit, 5)
	for i := range old {
		old[i], _ = b.Allow()
	}
	b.Record(&old[0], verdict.Failure)
	b.Record(&old[1], verdict.Failure) // opens
	clock.Advance(5 * time.Second)
	probe, err := b.Allow()
	if err != nil {
		t.Fatal(err)
	}
	b.Record(&old[2], verdict.Failure) // admitted while closed: ignored
	b.Record(&old[3], verdict.Success) // likewise: does not close it
	if s := b.State(); s != breaker.HalfOpen {
		t.Fatalf("stale outcomes moved the breaker to %v", s)
	}
	b.Record(&probe, verdict.Success)
	b.Record(&probe, verdict.Failure) // recorded twice: the second is stale
	b.Record(&breaker.Permit{}, verdict.Failure)
	if st := b.Stats(); st.State != breaker.Closed || st.Failures != 2 || st.Successes != 1 {
		t.Errorf("Stats = %+v; want closed, 2 failures, 1 success", st)
	}
}

func TestOperatorStates(t *testing.T) {
	var changes []string
	b, _ := newBreaker(t, breaker.Config{Name: "api", ConsecutiveFailures: 1, OnStateChange: func(name string, from, to breaker.State) {
		changes = append(changes, name+": "+from.String()+" > "+to.String())
	}})
	b.ForceOpen()
	err := call(b, verdict.Success)
	oe := openError(t, err)
	if d, ok := oe.Remaining(epoch); oe.State != breaker.ForcedOpen || ok || d != 0 {
		t.Errorf("forced open: %+v, Remaining %v %v; want ForcedOpen and no remaining time", oe, d, ok)
	}
	if got := err.Error(); got != "breaker api: circuit forced open" {
		t.Errorf("Error() = %q", got)
	}
	b.Disable()
	for range 10 {
		if err := call(b, verdict.Failure); err != nil {
			t.Fatalf("a disabled breaker refused: %v", err)
		}
	}
	if st := b.Stats(); st.State != breaker.Disabled || st.Failures != 0 || st.Rejected != 1 {
		t.Errorf("disabled: %+v; want nothing counted, still disabled", st)
	}
	b.MetricsOnly()
	for range 10 {
		if err := call(b, verdict.Failure); err != nil {
			t.Fatalf("a metrics-only breaker refused: %v", err)
		}
	}
	if st := b.Stats(); st.State != breaker.MetricsOnly || st.Failures != 10 || st.WindowFailures != 10 {
		t.Errorf("metrics-only: %+v; want 10 failures counted, still metrics-only", st)
	}
	b.Reset()
	call(b, verdict.Failure)
	b.Reset()
	b.Reset() // no change: no report
	want := []string{
		"api: closed > forced-open", "api: forced-open > disabled", "api: disabled > metrics-only", "api: metrics-only > closed",
		"api: closed > open", "api: open > closed",
	}
	if diff := cmp.Diff(want, changes); diff != "" {
		t.Errorf("OnStateChange (-want +got):\n%s", diff)
	}
}

func TestOpenError(t *testing.T) {
	b, clock := newBreaker(t, breaker.Config{Name: "https://api.example.com:443", ConsecutiveFailures: 1})
	call(b, verdict.Failure)
	clock.Advance(2 * time.Second)
	err := call(b, verdict.Success)
	// 2s into a 5s opening the message names the whole opening as such
	// ("for 5s" read as the time left); Remaining says 3s.
	if got, want := err.Error(), "breaker https://api.example.com:443: circuit open, an opening of 5s"; got != want {
		t.Errorf("Error() = %q; want %q", got, want)
	}
	oe := openError(t, err)
	if !oe.Until.Equal(epoch.Add(5 * time.Second)) {
		t.Errorf("Until = %v; want epoch+5s", oe.Until)
	}
	for _, tt := range []struct {
		at   time.Duration
		want time.Duration
	}{{0, 5 * time.Second}, {2 * time.Second, 3 * time.Second}, {5 * time.Second, 0}, {time.Minute, 0}} {
		if d, ok := oe.Remaining(epoch.Add(tt.at)); d != tt.want || !ok {
			t.Errorf("Remaining at +%v = %v, %v; want %v, true", tt.at, d, ok, tt.want)
		}
	}
	// Every refusal in one opening is the same error: no allocation.
	if err2 := call(b, verdict.Success); err2 != err {
		t.Errorf("two refusals in one opening returned different errors")
	}
	anon, _ := newBreaker(t, breaker.Config{ConsecutiveFailures: 1, HalfOpenProbes: 1})
	call(anon, verdict.Failure)
	if got := call(anon, verdict.Success).Error(); got != "breaker: circuit open, an opening of 5s" {
		t.Errorf("unnamed Error() = %q", got)
	}
}

func TestJitteredOpenForDrawsFromRandom(t *testing.T) {
	s := schedule.FullJitter(time.Second, time.Minute)
	b, clock := newBreaker(t, breaker.Config{ConsecutiveFailures: 1, OpenFor: s, Random: randcap.Seeded(42)})
	run := interp.Start(s, 42)
	var got, want []time.Duration
	call(b, verdict.Failure)
	var since time.Duration
	for range 8 {
		_, err := b.Allow()
		d := openError(t, err).For
		got = append(got, d)
		w, _ := run.Next(since, since)
		want = append(want, w)
		clock.Advance(d)
		since += d
		call(b, verdict.Failure) // the probe fails
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("open durations (-interp +breaker):\n%s", diff)
	}
}

func TestOpenForThatStopsKeepsItsLastDelay(t *testing.T) {
	s := schedule.Intersect{A: schedule.Exponential{Base: time.Second, FactorPct: 200, Cap: time.Hour}, B: schedule.Times{N: 3}}
	b, clock := newBreaker(t, breaker.Config{ConsecutiveFailures: 1, OpenFor: s})
	call(b, verdict.Failure)
	var got []time.Duration
	for range 4 {
		_, err := b.Allow()
		d := openError(t, err).For
		got = append(got, d)
		clock.Advance(d)
		call(b, verdict.Failure)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("open durations (-want +got):\n%s", diff)
	}
}

func TestStateString(t *testing.T) {
	var got []string
	for s := range breaker.State(7) {
		got = append(got, s.String())
	}
	want := []string{"closed", "half-open", "open", "forced-open", "disabled", "metrics-only", "state(6)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("State.String (-want +got):\n%s", diff)
	}
}

func TestNoAllocations(t *testing.T) {
	b, _ := newBreaker(t, breaker.Config{})
	if n := testing.AllocsPerRun(1000, func() { call(b, verdict.Success) }); n != 0 {
		t.Errorf("closed Allow+Record(Success) allocates %v times", n)
	}
	if n := testing.AllocsPerRun(1000, func() { call(b, verdict.Neutral) }); n != 0 {
		t.Errorf("closed Allow+Record(Neutral) allocates %v times", n)
	}
	b.ForceOpen()
	if n := testing.AllocsPerRun(1000, func() { call(b, verdict.Success) }); n != 0 {
		t.Errorf("a refusal allocates %v times", n)
	}
	slow, _ := newBreaker(t, breaker.Config{SlowCall: time.Second})
	if n := testing.AllocsPerRun(1000, func() { call(slow, verdict.Success) }); n != 0 {
		t.Errorf("timed Allow+Record allocates %v times", n)
	}
}

// A probe that is never recorded does not keep the breaker half-open: once
// the open duration has passed again, the probe counts as failed.
func TestLostProbeTimesOut(t *testing.T) {
	b, clock := newBreaker(t, breaker.Config{ConsecutiveFailures: 1})
	call(b, verdict.Failure)
	clock.Advance(5 * time.Second)
	lost, err := b.Allow()
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(5*time.Second - time.Nanosecond)
	if oe := openError(t, call(b, verdict.Success)); oe.State != breaker.HalfOpen {
		t.Fatalf("while the probe may still answer: %+v; want a half-open refusal", oe)
	}
	clock.Advance(time.Nanosecond)
	if oe := openError(t, call(b, verdict.Success)); oe.State != breaker.Open || oe.For != 10*time.Second {
		t.Fatalf("after the probe timed out: %+v; want open for 10s", oe)
	}
	b.Record(&lost, verdict.Success) // too late: counts nothing
	if st := b.Stats(); st.State != breaker.Open || st.Opened != 2 || st.Successes != 0 {
		t.Errorf("Stats = %+v; want open, opened twice, no success", st)
	}
}
