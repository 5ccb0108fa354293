package defaults

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/avast/retry-go/v4"
	"github.com/cenkalti/backoff/v5"
	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/go-retryablehttp"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
)

var errFail = errors.New("fail")

// delays returns the delays of one run of s with instant attempts.
func delays(s schedule.Schedule, seed uint64) []time.Duration {
	var out []time.Duration
	for d := range interp.Delays(s, seed) {
		out = append(out, d)
		if len(out) == 10_000 {
			break
		}
	}
	return out
}

func TestPoliciesAreValid(t *testing.T) {
	for _, p := range append(Peers(), Ours()...) {
		if err := schedule.Validate(p.Schedule); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
		if p.Source == "" {
			t.Errorf("%s: no source", p.Name)
		}
	}
}

// recorder is an avast Timer that records each wait and does not wait.
type recorder struct{ waits []time.Duration }

func (r *recorder) After(d time.Duration) <-chan time.Time {
	r.waits = append(r.waits, d)
	c := make(chan time.Time, 1)
	c <- time.Time{}
	return c
}

// TestAvast runs avast's retry.Do with its defaults (and a timer that
// records instead of waiting) and checks that each of its waits falls in
// the range of the schedule's, that both make the same number of
// attempts, and that the schedule covers its ranges.
func TestAvast(t *testing.T) {
	s := Avast().Schedule
	const runs = 500
	lo := make([]time.Duration, avastAttempts-1)
	hi := make([]time.Duration, avastAttempts-1)
	for i := range lo {
		lo[i], hi[i] = avastDelay<<i, avastDelay<<i+avastJitter
	}
	for range runs {
		rec := &recorder{}
		calls := 0
		err := retry.Do(func() error { calls++; return errFail }, retry.WithTimer(rec))
		if err == nil || calls != avastAttempts || len(rec.waits) != avastAttempts-1 {
			t.Fatalf("retry.Do: %d calls, %d waits, err %v; want %d calls, %d waits, an error", calls, len(rec.waits), err, avastAttempts, avastAttempts-1)
		}
		for i, d := range rec.waits {
			if d < lo[i] || d >= hi[i] {
				t.Fatalf("avast wait %d = %v outside [%v, %v)", i+1, d, lo[i], hi[i])
			}
		}
	}
	gotLo := append([]time.Duration(nil), hi...)
	gotHi := make([]time.Duration, len(hi))
	for seed := range uint64(runs) {
		ds := delays(s, seed)
		if len(ds) != avastAttempts-1 {
			t.Fatalf("schedule made %d waits, want %d", len(ds), avastAttempts-1)
		}
		for i, d := range ds {
			if d < lo[i] || d > hi[i] {
				t.Fatalf("schedule wait %d = %v outside [%v, %v]", i+1, d, lo[i], hi[i])
			}
			gotLo[i], gotHi[i] = min(gotLo[i], d), max(gotHi[i], d)
		}
	}
	for i := range lo {
		if gotLo[i]-lo[i] > avastJitter/50 || hi[i]-gotHi[i] > avastJitter/50 {
			t.Errorf("wait %d: %d draws spanned [%v, %v]; want nearly all of [%v, %v]", i+1, runs, gotLo[i], gotHi[i], lo[i], hi[i])
		}
	}
}

func TestAdditiveJitter(t *testing.T) {
	// Each ratio from/(from+250µs) must reduce to a fraction whose
	// denominator is at most 1000: 4/5, 28/29, 99/100, 999/1000.
	steps := []time.Duration{time.Millisecond, 7 * time.Millisecond, 24750 * time.Microsecond, 249750 * time.Microsecond}
	s, err := AdditiveJitter(steps, 250*time.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(200) {
		ds := delays(s, seed)
		if len(ds) != len(steps) {
			t.Fatalf("%d waits, want %d", len(ds), len(steps))
		}
		for i, d := range ds {
			if d < steps[i] || d > steps[i]+250*time.Microsecond {
				t.Fatalf("wait %d = %v outside [%v, %v+250µs]", i+1, d, steps[i], steps[i])
			}
		}
	}
	// 1h/(1h+250µs) = 14400000/14400001: no whole percentages say it.
	if _, err := AdditiveJitter([]time.Duration{time.Hour}, 250*time.Microsecond); err == nil {
		t.Error("AdditiveJitter(1h, 250µs): no error")
	}
}

func TestExactRange(t *testing.T) {
	tests := []struct{ from, to time.Duration }{
		{100 * time.Millisecond, 200 * time.Millisecond},
		{200 * time.Millisecond, 300 * time.Millisecond},
		{25600 * time.Millisecond, 25700 * time.Millisecond},
		{0, time.Second},
		{time.Second, time.Second},
		{1, 3},
	}
	for _, tt := range tests {
		b, lo, hi, ok := exactRange(tt.from, tt.to)
		if !ok {
			t.Errorf("exactRange(%v, %v): none", tt.from, tt.to)
			continue
		}
		if got := []time.Duration{b * time.Duration(lo) / 100, b * time.Duration(hi) / 100}; !cmp.Equal(got, []time.Duration{tt.from, tt.to}) || lo > hi || hi > 1000 {
			t.Errorf("exactRange(%v, %v) = %v, %d%%, %d%%: gives %v", tt.from, tt.to, b, lo, hi, got)
		}
	}
}

// TestCenkalti checks the un-jittered intervals of the schedule against
// cenkalti's own (randomization factor 0, the other defaults kept), and
// the budget against its MaxElapsedTime rule.
func TestCenkalti(t *testing.T) {
	p := Cenkalti().Schedule.(schedule.UpTo)
	j := p.Inner.(schedule.Jittered)
	if diff := cmp.Diff([]int{50, 150}, []int{j.LowPct, j.HighPct}); diff != "" {
		t.Errorf("jitter range (-want +got):\n%s", diff)
	}
	b := backoff.NewExponentialBackOff()
	b.RandomizationFactor = 0
	b.Reset()
	var want []time.Duration
	for range 30 {
		want = append(want, b.NextBackOff())
	}
	got := delays(j.Inner, 1)[:30]
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("intervals (-cenkalti +schedule):\n%s", diff)
	}
	// Without jitter, the waits add up to just under 15 minutes and the
	// next one would pass it: UpTo stops there, as cenkalti does.
	var total time.Duration
	n := 0
	for d := range interp.Delays(schedule.UpTo{Inner: j.Inner, Budget: p.Budget}, 1) {
		total += d
		n++
	}
	if total > backoff.DefaultMaxElapsedTime || total+time.Minute <= backoff.DefaultMaxElapsedTime {
		t.Errorf("%d waits add up to %v; want the most that fit in %v", n, total, backoff.DefaultMaxElapsedTime)
	}
}

// TestFailsafe runs a failsafe-go policy with the defaults and counts its
// attempts and delays.
func TestFailsafe(t *testing.T) {
	var waits []time.Duration
	p := retrypolicy.NewBuilder[int]().OnRetryScheduled(func(e failsafe.ExecutionScheduledEvent[int]) {
		waits = append(waits, e.Delay)
	}).Build()
	calls := 0
	_, err := failsafe.With[int](p).WithContext(context.Background()).Get(func() (int, error) { calls++; return 0, errFail })
	if err == nil {
		t.Fatal("no error after the retries")
	}
	got := struct {
		Calls int
		Waits []time.Duration
	}{calls, waits}
	want := got
	want.Calls = Failsafe().Schedule.(schedule.Times).N
	want.Waits = delays(Failsafe().Schedule, 1)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("failsafe-go default (-schedule +failsafe):\n%s", diff)
	}
}

// TestRetryableHTTP checks the schedule's waits against DefaultBackoff
// with NewClient's settings.
func TestRetryableHTTP(t *testing.T) {
	c := retryablehttp.NewClient()
	var want []time.Duration
	for i := 0; i < c.RetryMax; i++ {
		want = append(want, retryablehttp.DefaultBackoff(c.RetryWaitMin, c.RetryWaitMax, i, nil))
	}
	if diff := cmp.Diff(want, delays(RetryableHTTP().Schedule, 1)); diff != "" {
		t.Errorf("waits (-retryablehttp +schedule):\n%s", diff)
	}
}
