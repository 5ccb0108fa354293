package budget_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/verdict"
	"pgregory.net/rapid"
)

var allVerdicts = []verdict.Verdict{verdict.Success, verdict.Transient, verdict.Retryable, verdict.Failure, verdict.Neutral, verdict.Verdict(9)}

// TestPropTokenBucketMatchesModel: gRFC A6 in thousandths of a token.
func TestPropTokenBucketMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		maxTokens := rapid.IntRange(1, 20).Draw(t, "max")
		ratio := rapid.IntRange(1, maxTokens*1000).Draw(t, "ratio") // thousandths
		b, err := budget.NewTokenBucket(budget.TokenBucketConfig{MaxTokens: maxTokens, TokenRatio: float64(ratio) / 1000})
		if err != nil {
			t.Fatal(err)
		}
		tokens, full := maxTokens*1000, maxTokens*1000
		var want budget.Stats
		for range rapid.IntRange(1, 300).Draw(t, "steps") {
			switch rapid.IntRange(0, 2).Draw(t, "op") {
			case 0:
				want.Requests++
				if !b.Request() {
					t.Fatal("a token bucket refused a call")
				}
			case 1:
				ok := tokens > full/2
				if ok {
					want.Retries++
				} else {
					want.Throttled++
				}
				if got := b.AllowRetry(); got != ok {
					t.Fatalf("AllowRetry at %d/1000 tokens of %d = %v", tokens, maxTokens, got)
				}
			case 2:
				v := rapid.SampledFrom(allVerdicts).Draw(t, "verdict")
				switch v {
				case verdict.Success:
					tokens = min(full, tokens+ratio)
				case verdict.Transient, verdict.Retryable, verdict.Failure:
					tokens = max(0, tokens-1000)
				}
				b.Record(v)
			}
			want.Tokens = float64(tokens) / 1000
			if diff := cmp.Diff(want, b.Stats()); diff != "" {
				t.Fatalf("Stats (-model +bucket):\n%s", diff)
			}
		}
	})
}

// windowModel remembers every event's time and counts the newest ten
// buckets of width.
type windowModel struct {
	width time.Duration
	now   time.Duration
	times [3][]time.Duration
}

func (m *windowModel) add(c int) { m.times[c] = append(m.times[c], m.now) }

func (m *windowModel) sum(c int, at time.Duration) int {
	n := 0
	for _, t := range m.times[c] {
		if t <= at && t/m.width > at/m.width-10 {
			n++
		}
	}
	return n
}

// TestPropRatioMatchesModel: retries allowed while, counting this one,
// they stay within Percent% of the window's calls plus the floor.
func TestPropRatioMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pct := rapid.IntRange(1, 200).Draw(t, "percent")
		perSec := rapid.IntRange(-1, 3).Draw(t, "perSecond")
		window := time.Duration(rapid.IntRange(1, 20).Draw(t, "window")) * time.Second
		clock := clockcap.Virtual(epoch)
		r, err := budget.NewRatio(budget.RatioConfig{Percent: pct, MinPerSecond: perSec, Window: window, Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		budget.Exact(r)
		floor := 0
		switch {
		case perSec == 0:
			floor = int(window / time.Second)
		case perSec > 0:
			floor = perSec * int(window/time.Second)
		}
		m := &windowModel{width: window / 10}
		var want budget.Stats
		for range rapid.IntRange(1, 300).Draw(t, "steps") {
			switch rapid.IntRange(0, 3).Draw(t, "op") {
			case 0:
				d := time.Duration(rapid.Int64Range(0, int64(window/4)).Draw(t, "advance"))
				clock.Advance(d)
				m.now += d
			case 1, 2:
				m.add(0)
				want.Requests++
				r.Request()
			case 3:
				ok := (m.sum(1, m.now)+1)*100 <= m.sum(0, m.now)*pct+floor*100
				if ok {
					m.add(1)
					want.Retries++
				} else {
					want.Throttled++
				}
				if got := r.AllowRetry(); got != ok {
					t.Fatalf("AllowRetry with %d calls, %d retries in the window = %v", m.sum(0, m.now), m.sum(1, m.now), got)
				}
			}
			r.Record(rapid.SampledFrom(allVerdicts).Draw(t, "verdict")) // does nothing
			if diff := cmp.Diff(want, r.Stats()); diff != "" {
				t.Fatalf("Stats (-model +ratio):\n%s", diff)
			}
		}
	})
}

// uniform is the documented coin: SplitMix64 of seed + n·golden.
func uniform(seed, n uint64) float64 {
	z := seed + n*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11) / (1 << 53)
}

// TestPropAdaptiveMatchesModel: each attempt is refused with probability
// (calls − K·accepts)/(calls + 8) over the window while answered attempts
// exceed K·accepts, and never otherwise, judged first on the window as of
// its last update (no clock read) and, when that says refuse, again as of
// now. An attempt counts as answered when recorded, as a call when
// recorded or refused.
func TestPropAdaptiveMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.SampledFrom([]float64{1, 1.5, 2, 3}).Draw(t, "K")
		window := time.Duration(rapid.IntRange(1, 120).Draw(t, "window")) * time.Second
		seed := rapid.Uint64().Draw(t, "seed")
		clock := clockcap.Virtual(epoch)
		a, err := budget.NewAdaptive(budget.AdaptiveConfig{K: k, Window: window, Clock: clock, Random: randcap.Seeded(seed)})
		if err != nil {
			t.Fatal(err)
		}
		budget.Exact(a)
		m := &windowModel{width: window / 10}
		var last time.Duration // when the window was last updated
		var draws uint64
		var want budget.Stats
		// Counters: 0 answered attempts, 1 accepted ones, 2 refused ones.
		admit := func() bool {
			answered, accepts := float64(m.sum(0, last)), float64(m.sum(1, last))
			if answered <= k*accepts {
				return true
			}
			last = m.now
			answered, accepts = float64(m.sum(0, m.now)), float64(m.sum(1, m.now))
			if answered <= k*accepts {
				return true
			}
			calls := answered + float64(m.sum(2, m.now))
			draws++
			if uniform(seed, draws) < (calls-k*accepts)/(calls+8) {
				m.add(2)
				return false
			}
			return true
		}
		for range rapid.IntRange(1, 400).Draw(t, "steps") {
			switch rapid.IntRange(0, 4).Draw(t, "op") {
			case 0:
				d := time.Duration(rapid.Int64Range(0, int64(window/4)).Draw(t, "advance"))
				clock.Advance(d)
				m.now += d
			case 1:
				ok := admit()
				want.Requests++
				if !ok {
					want.Refused++
				}
				if got := a.Request(); got != ok {
					t.Fatalf("Request = %v; model says %v", got, ok)
				}
			case 2:
				ok := admit()
				if ok {
					want.Retries++
				} else {
					want.Throttled++
				}
				if got := a.AllowRetry(); got != ok {
					t.Fatalf("AllowRetry = %v; model says %v", got, ok)
				}
			default:
				v := rapid.SampledFrom(allVerdicts).Draw(t, "verdict")
				m.add(0)
				if v == verdict.Success || v == verdict.Neutral {
					m.add(1)
				}
				last = m.now
				a.Record(v)
			}
			if diff := cmp.Diff(want, a.Stats()); diff != "" {
				t.Fatalf("Stats (-model +adaptive):\n%s", diff)
			}
		}
	})
}
