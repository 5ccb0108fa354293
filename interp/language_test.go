package interp_test

import (
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/internal/sat"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
	"pgregory.net/rapid"
)

// The later constructs of the language: linear, + (Sum), random and whilebelow,
// checked against the vectors of the peers' own test suites, each cited by
// its test's name, and by their laws.

// policy parses src or fails t.
func policy(t *testing.T, src string) schedule.Schedule {
	t.Helper()
	s, err := parse.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPeerVectorsExact: policies whose every wait a peer's test pins.
func TestPeerVectorsExact(t *testing.T) {
	const max = schedule.MaxDuration
	tests := []struct {
		peer, src string
		n         int
		want      []time.Duration
	}{
		// App-vNext/Polly, test/Polly.Core.Tests/Retry/RetryHelperTests.cs,
		// Linear_Ok: DelayBackoffType.Linear with a base of 1s waits 1s, 2s,
		// 3s; with a base of zero, 0, 0, 0.
		{"Polly RetryHelperTests.Linear_Ok", "linear(1s)", 3, []time.Duration{sec, 2 * sec, 3 * sec}},
		{"Polly RetryHelperTests.Linear_Ok (zero base)", "linear(0)", 3, []time.Duration{0, 0, 0}},
		// Polly's documentation of DelayBackoffType.Linear: 2s, 4s, 6s for a
		// 2s delay; MaxRetryAttempts = 3 is times(4) (three retries).
		{"Polly DelayBackoffType.Linear (docs)", "linear(2s) & times(4)", 10, []time.Duration{2 * sec, 4 * sec, 6 * sec}},
		// Polly RetryHelperTests.MaxDelay_Ok: Linear, attempt 2 (the third
		// wait), base 10s, MaxDelay 1s: 1s.
		{"Polly RetryHelperTests.MaxDelay_Ok (Linear)", "capped(linear(10s), 1s)", 3, []time.Duration{sec, sec, sec}},
		// jd/tenacity, tests/test_tenacity.py,
		// TestWaitConditions.test_incrementing_sleep:
		// wait_incrementing(start=500, increment=100) waits 500, 600, 700.
		{"tenacity test_incrementing_sleep", "linear(500ms, 100ms)", 3, []time.Duration{500 * ms, 600 * ms, 700 * ms}},
		// avast/retry-go, retry_test.go, TestCombineDelay: the sum of the
		// delays of the functions combined, saturating. "empty" is 0: the
		// empty sum is Forever, +'s identity.
		{"retry-go TestCombineDelay/empty", "forever", 3, []time.Duration{0, 0, 0}},
		{"retry-go TestCombineDelay/single", "linear(1s, 0)", 2, []time.Duration{sec, sec}},
		{"retry-go TestCombineDelay/overflow", "linear(2562047h47m16.854775807s, 0) + linear(1s, 0) + linear(1ms, 0)", 2, []time.Duration{max, max}},
		// Soostone/retry, src/Control/Retry.hs, limitRetriesByDelay i p:
		// "once the given time-delay amount has been reached or exceeded, the
		// policy will stop retrying": exponentialBackoff 1s doubles, 8s ≥ 5s.
		{"Soostone/retry limitRetriesByDelay", "whilebelow(exponential(1s, 200%, 1h), 5s)", 10, []time.Duration{sec, 2 * sec, 4 * sec}},
		// A wait of exactly the limit gives up too (≥).
		{"Soostone/retry limitRetriesByDelay (equal)", "whilebelow(exponential(1s, 200%, 1h), 4s)", 10, []time.Duration{sec, 2 * sec}},
		// cb372/cats-retry, the Scala port, PoliciesSuite "limitRetriesByDelay
		// - give up if the underlying policy chooses a delay greater than the
		// threshold": 101ms over a 100ms threshold gives up; 99ms goes on.
		{"cats-retry limitRetriesByDelay (101ms)", "whilebelow(linear(101ms, 0), 100ms)", 3, nil},
		{"cats-retry limitRetriesByDelay (99ms)", "whilebelow(linear(99ms, 0), 100ms)", 3, []time.Duration{99 * ms, 99 * ms, 99 * ms}},
	}
	for _, tt := range tests {
		t.Run(tt.peer, func(t *testing.T) {
			s := policy(t, tt.src)
			for _, seed := range []uint64{0, 1, 0xdeadbeef} {
				if diff := cmp.Diff(tt.want, delays(s, seed, tt.n)); diff != "" {
					t.Errorf("%s (seed %d) (-%s +recur):\n%s", tt.src, seed, tt.peer, diff)
				}
			}
		})
	}
}

// TestPeerVectorsRandom: sums with a random part, whose waits the peers'
// tests bound. tenacity's wait_random(min, max) is uniform in [min, max];
// recur's random(lo, hi) includes hi too.
func TestPeerVectorsRandom(t *testing.T) {
	tests := []struct {
		peer, src string
		lo, hi    time.Duration
	}{
		// jd/tenacity, tests/test_tenacity.py, test_wait_combine and
		// test_wait_double_sum: wait_random(0, 3) + wait_fixed(5) waits
		// 5 ≤ w < 8.
		{"tenacity test_wait_double_sum", "random(0, 3s) + linear(5s, 0)", 5 * sec, 8 * sec},
		// test_wait_triple_sum: wait_fixed(1) + wait_random(0, 3) +
		// wait_fixed(5) waits 6 ≤ w < 9.
		{"tenacity test_wait_triple_sum", "linear(1s, 0) + random(0, 3s) + linear(5s, 0)", 6 * sec, 9 * sec},
		// avast/retry-go's default DelayType, CombineDelay(BackOffDelay,
		// RandomDelay): 100ms·2ⁿ plus a random jitter below 100ms (its
		// default MaxJitter); the first wait is 100ms to 200ms.
		{"retry-go default CombineDelay(BackOffDelay, RandomDelay)", "exponential(100ms, 200%, 1h) + random(0, 100ms)", 100 * ms, 200 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.peer, func(t *testing.T) {
			s := policy(t, tt.src)
			seen := map[time.Duration]bool{}
			for seed := range uint64(1000) {
				d := delays(s, seed, 1)[0]
				if d < tt.lo || d > tt.hi {
					t.Fatalf("%s, seed %d: first wait %v outside [%v, %v]", tt.src, seed, d, tt.lo, tt.hi)
				}
				seen[d] = true
			}
			if len(seen) < 900 {
				t.Errorf("%s: %d distinct first waits of 1000 seeds; the draws do not spread", tt.src, len(seen))
			}
			f := schedule.FirstWait(s)
			if f.MinTotal != tt.lo || f.MaxTotal != tt.hi {
				t.Errorf("FirstWait(%s) = [%v, %v]; want [%v, %v]", tt.src, f.MinTotal, f.MaxTotal, tt.lo, tt.hi)
			}
		})
	}
}

// TestPeerWhileBelowIncreasing: Soostone/retry's test/Tests/Control/Retry.hs,
// "positive, nonzero exponential backoff is always incrementing": the delays
// of limitRetriesByDelay maxBound (exponentialBackoff delay) are sorted and
// distinct. recur's exponential saturates at its cap, the largest Duration,
// which whilebelow then gives up on.
func TestPeerWhileBelowIncreasing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base := time.Duration(rapid.Int64Range(1, int64(time.Hour)).Draw(t, "base"))
		s := schedule.WhileBelow{Inner: schedule.Exponential{Base: base, FactorPct: 200, Cap: schedule.MaxDuration}, Limit: schedule.MaxDuration}
		ds := delays(s, 0, 1000)
		if len(ds) == 1000 {
			t.Fatalf("%v never stops", s)
		}
		if !slices.IsSorted(ds) || len(slices.Compact(slices.Clone(ds))) != len(ds) {
			t.Fatalf("%v: delays %v are not strictly increasing", s, ds)
		}
	})
}

// The laws of +: commutative, associative, Forever its identity, Times(1)
// absorbing.
func TestLawSumCommutative(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		a, b := gen(t, "a"), gen(t, "b")
		return schedule.Sum{A: a, B: b}, schedule.Sum{A: b, B: a}
	})
}

func TestLawSumAssociative(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		a, b, c := gen(t, "a"), gen(t, "b"), gen(t, "c")
		return schedule.Sum{A: schedule.Sum{A: a, B: b}, B: c}, schedule.Sum{A: a, B: schedule.Sum{A: b, B: c}}
	})
}

func TestLawSumIdentityIsForever(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		a := gen(t, "a")
		if rapid.Bool().Draw(t, "left") {
			return schedule.Sum{A: schedule.Forever{}, B: a}, a
		}
		return schedule.Sum{A: a, B: schedule.Forever{}}, a
	})
}

func TestLawSumAbsorbedByTimes1(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		return schedule.Sum{A: gen(t, "a"), B: schedule.Times{N: 1}}, schedule.Times{N: 1}
	})
}

// A Times adds no wait: it bounds the attempts as in an Intersect.
func TestLawSumTimesIsIntersect(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		a, tn := gen(t, "a"), schedule.Times{N: n(t, "n")}
		return schedule.Sum{A: a, B: tn}, schedule.Intersect{A: a, B: tn}
	})
}

// Each wait of a + b is a's plus b's, saturating, while both go on.
func TestLawSumAddsDelays(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := gen(t, "a"), gen(t, "b")
		if interp.NeedsStart(a) || interp.NeedsStart(b) {
			t.Skip("timed: a and b alone see another timeline than inside the sum")
		}
		seed := rapid.Uint64().Draw(t, "seed")
		da, db, ds := delays(a, seed, 100), delays(b, seed, 100), delays(schedule.Sum{A: a, B: b}, seed, 100)
		if len(ds) != min(len(da), len(db)) {
			t.Fatalf("%v + %v: %d waits; want %d", a, b, len(ds), min(len(da), len(db)))
		}
		for i := range ds {
			if want := sat.AddDur(da[i], db[i]); ds[i] != want {
				t.Fatalf("%v + %v: wait %d is %v; want %v + %v", a, b, i, ds[i], da[i], db[i])
			}
		}
	})
}

// The bounds of a + b add up: for untimed schedules that never stop, cut
// to 6 attempts, the least and the most total wait are the sums of the
// sides'.
func TestPropSumBoundsAdd(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pick := func(label string) schedule.Schedule {
			if rapid.Bool().Draw(t, label+" leaf") {
				return interp.GenLeaf().Draw(t, label) // most leaves never stop
			}
			return gen(t, label)
		}
		a, b := pick("a"), pick("b")
		if interp.NeedsStart(a) || interp.NeedsStart(b) || schedule.Stops(a) || schedule.Stops(b) || randomStop(a) || randomStop(b) {
			t.Skip("timed, stops, or a stop that depends on draws: Bounds follows rules there, not the run")
		}
		cut := func(s schedule.Schedule) schedule.Limits {
			return schedule.Bounds(schedule.Intersect{A: s, B: schedule.Times{N: 6}})
		}
		la, lb, ls := cut(a), cut(b), cut(schedule.Sum{A: a, B: b})
		if ls.MinTotal != sat.AddDur(la.MinTotal, lb.MinTotal) || ls.MaxTotal != sat.AddDur(la.MaxTotal, lb.MaxTotal) {
			t.Fatalf("Bounds of (%v + %v) & times(6) = %+v; sides %+v and %+v", a, b, ls, la, lb)
		}
	})
}

// linear(base, step) waits base + (k−1)·step: linear(base) waits base·k.
func TestLawLinearDelays(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base := time.Duration(rapid.Int64Range(0, int64(time.Hour)).Draw(t, "base"))
		step := base
		if rapid.Bool().Draw(t, "own step") {
			step = time.Duration(rapid.Int64Range(0, int64(time.Hour)).Draw(t, "step"))
		}
		for k, d := range delays(schedule.Linear{Base: base, Step: step}, 0, 50) {
			if want := sat.AddDur(base, sat.MulDur(step, int64(k))); d != want {
				t.Fatalf("Linear(%v, %v) wait %d: %v; want %v", base, step, k+1, d, want)
			}
		}
	})
}

// Random waits within [lo, hi].
func TestLawRandomWithinRange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lo := time.Duration(rapid.Int64Range(0, int64(schedule.MaxDuration)).Draw(t, "lo"))
		hi := time.Duration(rapid.Int64Range(int64(lo), int64(schedule.MaxDuration)).Draw(t, "hi"))
		for _, d := range delays(schedule.Random{Lo: lo, Hi: hi}, rapid.Uint64().Draw(t, "seed"), 50) {
			if d < lo || d > hi {
				t.Fatalf("Random(%v, %v) waited %v", lo, hi, d)
			}
		}
	})
}

// A limit above every wait the inner schedule can choose never bites.
func TestLawWhileBelowAboveEveryWaitIsInner(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		a := gen(t, "a")
		m := schedule.MaxDelayAnyPace(a)
		if m == schedule.MaxDuration {
			t.Skip("no wait bound")
		}
		return schedule.WhileBelow{Inner: a, Limit: m + 1}, a
	})
}

func TestLawWhileBelowWhileBelowIsMin(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		a := gen(t, "a")
		x, y := max(limit(t, "x"), 1), max(limit(t, "y"), 1)
		return schedule.WhileBelow{Inner: schedule.WhileBelow{Inner: a, Limit: x}, Limit: y}, schedule.WhileBelow{Inner: a, Limit: min(x, y)}
	})
}

// No wait of a whilebelow reaches its limit.
func TestLawWhileBelowWaitsBelowLimit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := schedule.WhileBelow{Inner: gen(t, "a"), Limit: max(limit(t, "x"), 1)}
		for _, d := range lawDrive(s, rapid.Uint64().Draw(t, "seed"), drawRun(t).durs) {
			if d.OK && d.Delay >= s.Limit {
				t.Fatalf("%v waited %v", s, d.Delay)
			}
		}
	})
}

// Stepping the new constructs allocates nothing.
func TestLanguageStepAllocatesNothing(t *testing.T) {
	s := policy(t, "whilebelow(linear(100ms) + random(0, 50ms) + exponential(1ms, 150%, 1s), 1h) & times(1073741824)")
	r := interp.Start(s, 1)
	if n := testing.AllocsPerRun(1000, func() { r.Next(0, 0) }); n != 0 {
		t.Errorf("Next of %v allocates %v times", s, n)
	}
}

// Jitter with fractions of a percent stays inside [low, high] of the inner
// delay, rounding down, as whole percents do.
func TestLawFineJitterWithinRange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := gen(t, "a")
		lo := rapid.Int64Range(0, 10_000_000).Draw(t, "low ppm")
		hi := rapid.Int64Range(lo, 10_000_000).Draw(t, "high ppm")
		j := schedule.Jittered{Inner: a, LowPct: int(lo / 10_000), LowFrac: int(lo % 10_000), HighPct: int(hi / 10_000), HighFrac: int(hi % 10_000)}
		if err := schedule.Validate(j); err != nil {
			t.Fatal(err)
		}
		r := drawRun(t)
		outer, in := lawDriveInputs(j, r.seed, r.durs)
		inner := replay(a, r.seed, in)
		for i, d := range inner {
			if !d.OK || !outer[i].OK {
				if d.OK != outer[i].OK {
					t.Fatalf("decision %d: %v says ok=%v, inner ok=%v", i+1, j, outer[i].OK, d.OK)
				}
				continue
			}
			if least, most := ppmOf(d.Delay, lo), ppmOf(d.Delay, hi); outer[i].Delay < least || outer[i].Delay > most {
				t.Fatalf("decision %d: %v: inner %v jittered to %v, outside [%v, %v]", i+1, j, d.Delay, outer[i].Delay, least, most)
			}
		}
	})
}

// ppmOf returns ⌊d·ppm/10⁶⌋, saturating.
func ppmOf(d time.Duration, ppm int64) time.Duration {
	x := new(big.Int).Mul(big.NewInt(int64(d)), big.NewInt(ppm))
	x.Quo(x, big.NewInt(1_000_000))
	if !x.IsInt64() {
		return schedule.MaxDuration
	}
	return time.Duration(x.Int64())
}

// Sub-percent factors: Resilience4j's IntervalFunction multiplier 1.0001
// is 100.01%, its 0.5% randomization 99.5%–100.5%. The printed form is
// canonical and parses back to the same value.
func TestFineFactors(t *testing.T) {
	tests := []struct {
		src, canonical string
		want           []time.Duration
	}{
		{"exponential(1s, 100.01%, 1h)", "Exponential(1s, 100.01%, 1h0m0s)", []time.Duration{sec, sec + 100*time.Microsecond, sec + 200010*time.Nanosecond}},
		{"exponential(1s, 100.0001, 1h)", "Exponential(1s, 100.0001%, 1h0m0s)", []time.Duration{sec, sec + time.Microsecond, sec + 2*time.Microsecond}},
		{"exponential(1s, 150.5%, 1h)", "Exponential(1s, 150.5%, 1h0m0s)", []time.Duration{sec, 1505 * ms, 2265025 * time.Microsecond}},
		{"jittered(linear(1s, 0), 100.0000%, 100.0%)", "Linear(1s, 0s)", nil}, // 100% is 100%
		{"exponential(1s, 200.00%, 1h)", "Exponential(1s, 200%, 1h0m0s)", []time.Duration{sec, 2 * sec, 4 * sec}},
	}
	for _, tt := range tests {
		s := policy(t, tt.src)
		if tt.want == nil {
			s = schedule.Simplify(s)
		}
		if got := s.String(); got != tt.canonical {
			t.Errorf("Parse(%q).String() = %q; want %q", tt.src, got, tt.canonical)
		}
		if back := policy(t, s.String()); back != s {
			t.Errorf("Parse(%q) = %#v; want %#v", s.String(), back, s)
		}
		if tt.want != nil {
			if diff := cmp.Diff(tt.want, delays(s, 1, len(tt.want))); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.src, diff)
			}
		}
	}
	j := policy(t, "jittered(linear(1s, 0), 99.5%, 100.5%)").(schedule.Jittered)
	if j.LowPct != 99 || j.LowFrac != 5000 || j.HighPct != 100 || j.HighFrac != 5000 {
		t.Fatalf("99.5%%–100.5%% parsed to %#v", j)
	}
	for seed := range uint64(500) {
		if d := delays(j, seed, 1)[0]; d < 995*ms || d > 1005*ms {
			t.Fatalf("%v, seed %d: %v outside [995ms, 1.005s]", j, seed, d)
		}
	}
	if f := schedule.FirstWait(j); f.MinTotal != 995*ms || f.MaxTotal != 1005*ms {
		t.Errorf("FirstWait(%v) = [%v, %v]; want [995ms, 1.005s]", j, f.MinTotal, f.MaxTotal)
	}
}

// Whole percents keep their draws: the key and the arithmetic of a
// Jittered without fractions are those of the whole-percent interpreter.
func TestWholePercentsKeepTheirDraws(t *testing.T) {
	whole := schedule.Jittered{Inner: schedule.Linear{Base: sec}, LowPct: 50, HighPct: 150}
	fine := schedule.Jittered{Inner: schedule.Linear{Base: sec}, LowPct: 50, HighPct: 149, HighFrac: 9999}
	a, b := delays(whole, 7, 20), delays(fine, 7, 20)
	if slices.Equal(a, b) {
		t.Errorf("%v and %v draw the same: the fine key should differ", whole, fine)
	}
}

// Polly's DecorrelatedJitterBackoffV2, App-vNext/Polly's
// test/Polly.Core.Tests/Retry/RetryHelperTests.cs,
// DecorrelatedJitterBackoffV2_Meets_Specification: for a base delay f and
// attempt t (from 0), every delay lies in [0, f·2ᵗ·4 − 1 tick]; and the
// doc comment of RetryHelper.DecorrelatedJitterBackoffV2: retry t comes, in
// the median, near f·2ᵗ after the first failure (the waits add up to
// g(t+u)·f/1.4, which telescopes).
func TestPeerDecorrelatedV2(t *testing.T) {
	for _, base := range []time.Duration{ms, 200 * ms, sec, time.Minute} {
		s := schedule.DecorrelatedV2{Base: base}
		const seeds, n = 2001, 8
		per := make([][]time.Duration, n)
		for seed := range uint64(seeds) {
			var at time.Duration
			for k, d := range delays(s, seed, n) {
				ceiling := sat.MulDur(base, 4<<k) - 100 // a .NET tick is 100ns
				if d < 0 || d > ceiling {
					t.Fatalf("%v, seed %d, attempt %d: %v outside [0, %v]", s, seed, k, d, ceiling)
				}
				at += d
				per[k] = append(per[k], at)
			}
		}
		for k, ats := range per {
			slices.Sort(ats)
			median, want := ats[seeds/2], sat.MulDur(base, 1<<k)
			if median < want*85/100 || median > want*115/100 { // the first comes near 0.9·f, Polly's 850ms
				t.Errorf("%v retry %d: median time %v, far from %v", s, k+1, median, want)
			}
		}
	}
	// Polly.Contrib.WaitAndRetry's Backoff_should_not_overflow_to_give_negative_timespan:
	// far out, the delays saturate and never turn negative.
	s := schedule.DecorrelatedV2{Base: time.Hour}
	ds := delays(s, 3, 2000)
	for i, d := range ds {
		if d < 0 {
			t.Fatalf("%v: delay %d is %v", s, i+1, d)
		}
	}
	if ds[len(ds)-1] != schedule.MaxDuration {
		t.Errorf("%v: delay 2000 is %v; want the largest Duration", s, ds[len(ds)-1])
	}
}

// The curve is pinned: these delays are what every platform computes for
// seed 1, so a change to the arithmetic shows.
func TestDecorrelatedV2Pinned(t *testing.T) {
	got := delays(schedule.DecorrelatedV2{Base: sec}, 1, 6)
	want := []time.Duration{1037434335, 1656603393, 2009304883, 2436340383, 12899813967, 6594471196}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DecorrelatedV2(1s), seed 1 (-pinned +now):\n%s", diff)
	}
}

// ResetAfter is ZIO's resetAfter, whose definition (zio/Schedule.scala) is
// (self zip Schedule.elapsed).resetWhen(_._2 >= duration): once the time
// since the inner schedule (re)started reaches d, it starts over.
func TestResetAfterTimelines(t *testing.T) {
	s := policy(t, "resetafter(exponential(1s, 200%, 1h), 10s)")
	// Instant attempts: 1+2+4 = 7s < 10s, then 15s ≥ 10s resets.
	want := []time.Duration{sec, 2 * sec, 4 * sec, 8 * sec, sec, 2 * sec, 4 * sec, 8 * sec, sec}
	if diff := cmp.Diff(want, delays(s, 0, len(want))); diff != "" {
		t.Errorf("%v, instant attempts (-want +got):\n%s", s, diff)
	}
	// A reconnect loop: two quick failures, a connection that lasted an
	// hour, then quick failures again: the backoff starts from 1s.
	var got []time.Duration
	for _, e := range drive(s, 0, []time.Duration{0, 0, time.Hour, 0, 0}, 5) {
		got = append(got, e.Delay)
	}
	if diff := cmp.Diff([]time.Duration{sec, 2 * sec, sec, 2 * sec, 4 * sec}, got); diff != "" {
		t.Errorf("%v, a long attempt (-want +got):\n%s", s, diff)
	}
	// The count starts over too: times(3) inside allows three attempts
	// between resets.
	s = policy(t, "resetafter(linear(4s, 0) & times(3), 5s)")
	if got, want := len(delays(s, 0, 20)), 20; got != want {
		t.Errorf("%v made %d retries; want %d (it never stops)", s, got, want)
	}
	if b := schedule.Bounds(s); b.AttemptsBounded() {
		t.Errorf("Bounds(%v) = %+v; want no bound on attempts", s, b)
	}
}

// With an After that no run reaches, ResetAfter is its inner schedule.
func TestLawResetAfterHugeIsInner(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, r := gen(t, "a"), drawRun(t)
		inner, in := lawDriveInputs(a, r.seed, r.durs)
		if in[len(in)-1].end >= schedule.MaxDuration/2 {
			t.Skip("the run reaches the end of time")
		}
		outer := replay(schedule.ResetAfter{Inner: a, After: schedule.MaxDuration / 2}, r.seed, in)
		if !slices.Equal(inner, outer) {
			t.Fatalf("ResetAfter(%v, huge) (-inner +outer):\n%s", a, cmp.Diff(inner, outer))
		}
	})
}
