package main

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recur-go/recur/audit"
	"github.com/recur-go/recur/cmd/schedcheck/internal/sat"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/lint"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/simulate"
	"pgregory.net/rapid"
)

// explained is what explain --json says about one policy, decoded here
// rather than through the command's own type so that the test reads the
// output a script reads.
type explained struct {
	MaxAttempts *int   `json:"max_attempts"`
	MinTotalNS  *int64 `json:"min_total_ns"`
	MaxTotalNS  *int64 `json:"max_total_ns"`
	Stops       bool   `json:"stops"`
}

// TestPropAgreeWithBounds: explain, simulate, audit and lint all read
// their limits from schedule.Bounds (and schedule.MaxDelayAnyPace), so on
// any valid schedule they agree with it: explain states them, simulate
// never goes past them, audit counts the same attempts, lint flags a
// policy that never stops or waits too long exactly when Bounds says so.
func TestPropAgreeWithBounds(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s := genSchedule().Draw(rt, "s")
		at := rapid.SampledFrom([]time.Duration{0, time.Millisecond, 3 * time.Second}).Draw(rt, "attempt")
		seed := rapid.Uint64().Draw(rt, "seed")
		b := schedule.Bounds(s)
		src := s.String()

		// explain
		out, errs, code := schedcheck(t, "", "explain", "--json", src)
		if code != exitOK {
			rt.Fatalf("explain %s: exit %d: %s", src, code, errs)
		}
		var e explained
		if err := json.Unmarshal([]byte(out), &e); err != nil {
			rt.Fatalf("explain %s: %v in %s", src, err, out)
		}
		if e.Stops != b.Stops {
			rt.Errorf("explain %s: stops %v, Bounds %v", src, e.Stops, b.Stops)
		}
		if got, want := e.MaxAttempts, b.MaxAttempts; (got == nil) != !b.AttemptsBounded() || got != nil && *got != want {
			rt.Errorf("explain %s: max_attempts %v, Bounds %d", src, deref(got), want)
		}
		if got := e.MaxTotalNS; (got == nil) != !b.TotalBounded() || got != nil && *got != int64(b.MaxTotal) {
			rt.Errorf("explain %s: max_total_ns %v, Bounds %d", src, deref(got), b.MaxTotal)
		}
		if got := e.MinTotalNS; (got == nil) != (b.MinTotal == schedule.MaxDuration) || got != nil && *got != int64(b.MinTotal) {
			rt.Errorf("explain %s: min_total_ns %v, Bounds %d", src, deref(got), b.MinTotal)
		}

		// simulate
		const most = 300
		out, errs, code = schedcheck(t, "", "simulate", "--json", src, "--seed", strconv.FormatUint(seed, 10), "--attempt-time", at.String(), "--max-attempts", strconv.Itoa(most))
		if code != exitOK {
			rt.Fatalf("simulate %s: exit %d: %s", src, code, errs)
		}
		var sim simulate.Result
		if err := json.Unmarshal([]byte(out), &sim); err != nil {
			rt.Fatalf("simulate %s: %v in %s", src, err, out)
		}
		if sim.Attempts > b.MaxAttempts {
			rt.Errorf("simulate %s: %d attempts, Bounds allows %d", src, sim.Attempts, b.MaxAttempts)
		}
		longest := slices.Max(append([]time.Duration{0}, sim.DelaysNS...))
		if anyPace := schedule.MaxDelayAnyPace(s); longest > anyPace {
			rt.Errorf("simulate %s --attempt-time %v: a wait of %v, MaxDelayAnyPace %v", src, at, longest, anyPace)
		}
		if at == 0 {
			var waited time.Duration
			for _, d := range sim.DelaysNS {
				waited = sat.AddDur(waited, d)
			}
			if longest > b.MaxDelay || waited > b.MaxTotal {
				rt.Errorf("simulate %s: longest wait %v, total %v; Bounds %v, %v", src, longest, waited, b.MaxDelay, b.MaxTotal)
			}
			if !sim.Truncated && waited < b.MinTotal {
				rt.Errorf("simulate %s: ended after waiting %v, Bounds says at least %v", src, waited, b.MinTotal)
			}
		}

		// audit
		n := audit.MaxAttempts(s, at)
		if !sim.Truncated && sim.Attempts > n {
			rt.Errorf("simulate %s --attempt-time %v: %d attempts, audit.MaxAttempts %d", src, at, sim.Attempts, n)
		}
		if want := b.MaxAttempts; (!interp.NeedsStart(s) || !b.Stops) && n != want && !(n == math.MaxInt && !b.Stops) {
			rt.Errorf("audit.MaxAttempts(%s, %v) = %d, Bounds %d", src, at, n, want)
		}

		// lint
		ids := map[string]bool{}
		for _, f := range lint.Check(s) {
			ids[f.ID] = true
		}
		if ids["never-stops"] == b.Stops {
			rt.Errorf("lint %s: never-stops %v, Bounds.Stops %v", src, ids["never-stops"], b.Stops)
		}
		if ids["no-cap"] != (b.MaxDelay > lint.MaxDelay) {
			rt.Errorf("lint %s: no-cap %v, Bounds.MaxDelay %v", src, ids["no-cap"], b.MaxDelay)
		}
	})
}

func deref[T any](p *T) string {
	if p == nil {
		return "null"
	}
	b, _ := json.Marshal(*p)
	return strings.TrimSpace(string(b))
}
