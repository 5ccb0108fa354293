package breaker_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
	"pgregory.net/rapid"
)

// model is the breaker as the documentation describes it, written as
// plainly as possible: it keeps every counted call of the current state
// with its time and counts the window by looking at them all.
type model struct {
	// configuration
	consecutive, rate, slowRate, minCalls, probes int
	countWindow                                   int
	slowCall, width                               time.Duration
	base, cap                                     time.Duration
	factor                                        int

	now      time.Duration // since the breaker was made
	state    breaker.State
	gen      int
	streak   int
	calls    []event // counted calls since the last transition
	k        int     // openings in a row
	openFor  time.Duration
	until    time.Duration
	halfAt   time.Duration // when it half-opened
	admitted int           // probes let through while half-open
	probeN   int           // probes counted
	probeBad int           // of which failed
	probeSlo int           // of which were slow
	stats    breaker.Stats
	changes  []string
}

type event struct {
	at           time.Duration
	failed, slow bool
}

type permit struct {
	real     *breaker.Permit
	gen      int
	start    time.Duration
	probe    bool
	recorded bool
}

// delay is the k-th delay of Exponential(base, factor, cap).
func (m *model) delay(k int) time.Duration {
	d := min(m.base, m.cap)
	for range k - 1 {
		d = min(m.cap, d*time.Duration(m.factor)/100)
	}
	return d
}

func (m *model) enter(s breaker.State) {
	if s != m.state {
		m.changes = append(m.changes, m.state.String()+">"+s.String())
	}
	m.state, m.gen = s, m.gen+1
	m.streak, m.calls, m.admitted = 0, nil, 0
	m.probeN, m.probeBad, m.probeSlo = 0, 0, 0
}

func (m *model) open(from breaker.State) {
	if from != breaker.HalfOpen {
		m.k = 0
	}
	m.k++
	m.openFor = m.delay(m.k)
	m.until = m.now + m.openFor
	m.stats.Opened++
	m.enter(breaker.Open)
}

// window returns the counted calls in the window: those in the newest 10
// buckets of width m.width, or the last countWindow.
func (m *model) window() (calls, failed, slow int) {
	head := m.now / m.width
	for i, c := range m.calls {
		if m.countWindow > 0 && i >= len(m.calls)-m.countWindow || m.countWindow == 0 && c.at/m.width > head-10 {
			calls++
			if c.failed {
				failed++
			}
			if c.slow {
				slow++
			}
		}
	}
	return
}

func (m *model) trips() bool {
	if m.consecutive > 0 && m.streak >= m.consecutive {
		return true
	}
	calls, failed, slow := m.window()
	minCalls := m.minCalls
	if m.countWindow > 0 {
		minCalls = min(minCalls, m.countWindow)
	}
	if calls == 0 || calls < minCalls {
		return false
	}
	return m.rates(calls, failed, slow)
}

func (m *model) rates(calls, failed, slow int) bool {
	return m.rate > 0 && failed*100 >= m.rate*calls || m.slowCall > 0 && slow*100 >= m.slowRate*calls
}

func (m *model) allow() (permit, bool) {
	for {
		switch m.state {
		case breaker.Closed, breaker.Disabled, breaker.MetricsOnly:
			return permit{gen: m.gen, start: m.now}, true
		case breaker.Open:
			if m.now < m.until {
				m.stats.Rejected++
				return permit{}, false
			}
			m.enter(breaker.HalfOpen)
			m.halfAt = m.now
		case breaker.HalfOpen:
			if m.admitted < m.probes {
				m.admitted++
				return permit{gen: m.gen, start: m.now, probe: true}, true
			}
			if m.now < m.halfAt+m.openFor {
				m.stats.Rejected++
				return permit{}, false
			}
			m.open(breaker.HalfOpen) // the probes timed out
		default:
			m.stats.Rejected++
			return permit{}, false
		}
	}
}

func (m *model) count(failed, slow bool) {
	m.calls = append(m.calls, event{m.now, failed, slow})
	if failed {
		m.stats.Failures++
	} else {
		m.stats.Successes++
	}
	if slow {
		m.stats.Slow++
	}
}

func (m *model) record(p *permit, v verdict.Verdict) {
	if p.recorded {
		m.stats.Duplicates++
		return
	}
	p.recorded = true
	if p.gen != m.gen {
		return // the call was let through in an earlier state
	}
	counted := v == verdict.Success || v.Failed()
	slow := counted && m.slowCall > 0 && m.now-p.start >= m.slowCall
	switch m.state {
	case breaker.Closed, breaker.MetricsOnly:
		if !counted {
			return
		}
		m.count(v.Failed(), slow)
		if v.Failed() {
			m.streak++
		} else {
			m.streak = 0
		}
		// The rules are judged after every counted outcome.
		if m.state == breaker.Closed && m.trips() {
			m.open(breaker.Closed)
		}
	case breaker.HalfOpen:
		if !counted {
			m.admitted--
			return
		}
		m.count(v.Failed(), slow)
		m.probeN++
		if v.Failed() {
			m.probeBad++
		}
		if slow {
			m.probeSlo++
		}
		if m.probeN < m.probes {
			return
		}
		if m.rate < 0 && m.probeBad > 0 || m.rates(m.probeN, m.probeBad, m.probeSlo) {
			m.open(breaker.HalfOpen)
		} else {
			m.enter(breaker.Closed)
		}
	}
}

func (m *model) set(s breaker.State) {
	m.k = 0
	m.enter(s)
}

var verdicts = []verdict.Verdict{verdict.Success, verdict.Transient, verdict.Retryable, verdict.Failure, verdict.Neutral, verdict.Verdict(7)}

// TestPropBreakerMatchesModel drives a breaker and the model with the same
// random calls, outcomes, clock advances and operator actions, and
// requires the same admissions, errors, states, counters and transitions.
func TestPropBreakerMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sec := time.Second
		m := &model{
			consecutive: rapid.SampledFrom([]int{-1, 1, 2, 3, 5}).Draw(t, "consecutive"),
			rate:        rapid.SampledFrom([]int{-1, 1, 30, 50, 100}).Draw(t, "rate"),
			slowCall:    time.Duration(rapid.IntRange(0, 3).Draw(t, "slowCall")) * sec,
			slowRate:    rapid.IntRange(1, 100).Draw(t, "slowRate"),
			minCalls:    rapid.IntRange(1, 8).Draw(t, "minCalls"),
			width:       time.Duration(rapid.IntRange(1, 3).Draw(t, "width")) * sec,
			probes:      rapid.IntRange(1, 4).Draw(t, "probes"),
			countWindow: rapid.SampledFrom([]int{0, 0, 1, 3, 5}).Draw(t, "countWindow"),
			base:        time.Duration(rapid.IntRange(1, 5).Draw(t, "base")) * sec,
			factor:      rapid.IntRange(100, 300).Draw(t, "factor"),
			cap:         time.Duration(rapid.IntRange(1, 20).Draw(t, "cap")) * sec,
		}
		clock := clockcap.Virtual(epoch)
		var mu sync.Mutex
		var changes []string
		b, err := breaker.NewExact(breaker.Config{
			ConsecutiveFailures: m.consecutive,
			FailureRate:         m.rate,
			SlowCall:            m.slowCall,
			SlowRate:            m.slowRate,
			MinCalls:            m.minCalls,
			CountWindow:         m.countWindow,
			Window:              10 * m.width,
			HalfOpenProbes:      m.probes,
			OpenFor:             schedule.Exponential{Base: m.base, FactorPct: m.factor, Cap: m.cap},
			Clock:               clock,
			Random:              randcap.Seeded(1),
			OnStateChange: func(_ string, from, to breaker.State) {
				mu.Lock()
				defer mu.Unlock()
				changes = append(changes, from.String()+">"+to.String())
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		var held, done []permit
		for range rapid.IntRange(1, 300).Draw(t, "steps") {
			switch op := rapid.IntRange(0, 10).Draw(t, "op"); {
			case op <= 2:
				d := time.Duration(rapid.IntRange(0, 4000).Draw(t, "ms")) * time.Millisecond
				clock.Advance(d)
				m.now += d
			case op <= 5:
				want, ok := m.allow()
				got, err := b.Allow()
				if ok != (err == nil) {
					t.Fatalf("Allow: model admits %v, breaker says %v", ok, err)
				}
				if ok {
					want.real = &got
					held = append(held, want)
					break
				}
				checkRefusal(t, m, err)
			case op <= 8:
				if len(held) == 0 {
					break
				}
				i := rapid.IntRange(0, len(held)-1).Draw(t, "permit")
				v := rapid.SampledFrom(verdicts).Draw(t, "verdict")
				m.record(&held[i], v)
				b.Record(held[i].real, v)
				done = append(done, held[i])
				held = append(held[:i], held[i+1:]...)
			case op == 9:
				// Record a permit again: it counts nothing but a
				// duplicate, whatever the state.
				if len(done) == 0 {
					break
				}
				i := rapid.IntRange(0, len(done)-1).Draw(t, "again")
				v := rapid.SampledFrom(verdicts).Draw(t, "verdict")
				m.record(&done[i], v)
				b.Record(done[i].real, v)
			default:
				s := rapid.SampledFrom([]breaker.State{breaker.Closed, breaker.ForcedOpen, breaker.Disabled, breaker.MetricsOnly}).Draw(t, "operator")
				m.set(s)
				switch s {
				case breaker.Closed:
					b.Reset()
				case breaker.ForcedOpen:
					b.ForceOpen()
				case breaker.Disabled:
					b.Disable()
				case breaker.MetricsOnly:
					b.MetricsOnly()
				}
			}
			m.stats.State = m.state
			got := b.Stats()
			got.WindowCalls, got.WindowFailures = 0, 0
			if diff := cmp.Diff(m.stats, got); diff != "" {
				t.Fatalf("Stats (-model +breaker):\n%s", diff)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if diff := cmp.Diff(m.changes, changes); diff != "" {
			t.Fatalf("transitions (-model +breaker):\n%s", diff)
		}
	})
}

func checkRefusal(t *rapid.T, m *model, err error) {
	if !errors.Is(err, breaker.ErrOpen) {
		t.Fatalf("refusal %v is not ErrOpen", err)
	}
	var oe *breaker.OpenError
	if !errors.As(err, &oe) {
		t.Fatalf("refusal %T is not an *OpenError", err)
	}
	want := breaker.OpenError{State: m.state}
	switch m.state {
	case breaker.Open:
		want.Until, want.For = epoch.Add(m.until), m.openFor
	case breaker.HalfOpen:
		want.Until = oe.Until // when it half-opened: not modelled
	}
	if diff := cmp.Diff(want, *oe); diff != "" {
		t.Fatalf("refusal (-model +breaker):\n%s", diff)
	}
}
