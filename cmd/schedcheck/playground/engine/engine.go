// Package engine is what the browser playground computes: it parses,
// explains, lints and simulates a policy, compares policies in a storm,
// and converts to and from a gRPC retryPolicy. Each function returns a
// value whose JSON form the page renders; the WebAssembly program in
// playground/wasm only marshals it. Nothing here knows about the browser,
// so the same code runs in the tests.
package engine

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/recur-go/recur/explain"
	"github.com/recur-go/recur/lint"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/simulate"
	"github.com/recur-go/recur/storm"
)

// Limits of what the page computes for one keystroke.
const (
	// MaxAttempts is simulate's default --max-attempts: the seeded run
	// stops there, so its delays equal `schedcheck simulate --json`'s.
	MaxAttempts = 1000
	// PlotRetries is how many retries the plot and the band show.
	PlotRetries = 50
	// BandSeeds is how many seeds the band spans.
	BandSeeds = 100
	// HedgeCalls is how many hedged calls the hedge view models, at the
	// latency HedgeLatency: enough for a p99 to mean something, few
	// enough for a keystroke.
	HedgeCalls = 5000
)

// HedgeLatency is the latency the hedge view models a call's copies with:
// a service whose median answer takes 20ms and p99 200ms.
var HedgeLatency = simulate.Latency{Median: 20 * time.Millisecond, P99: 200 * time.Millisecond}

// Analysis is everything the page shows for one policy text.
type Analysis struct {
	Canonical   string               `json:"canonical,omitempty"`
	Infix       string               `json:"infix,omitempty"`
	Error       *Error               `json:"error,omitempty"`
	Explanation *explain.Explanation `json:"explanation,omitempty"`
	Findings    []Finding            `json:"findings"`
	Run         *simulate.Result     `json:"run,omitempty"`
	Band        []simulate.Spread    `json:"band"`
	Jittered    bool                 `json:"jittered"`  // the band has width: runs differ by seed
	Simulated   string               `json:"simulated"` // why there is no run, if there is none
	GRPC        *GRPC                `json:"grpc"`
	Hedge       *Hedge               `json:"hedge,omitempty"`
}

// Hedge is the policy read as a hedging policy (retry.Hedge): what it
// does, lint's hedge findings, and what it costs and buys for calls of
// HedgeLatency (simulate.Hedge, HedgeCalls calls with the page's seed;
// none when the policy is too large to simulate).
type Hedge struct {
	Explanation string                `json:"explanation"`
	Findings    []Finding             `json:"findings"`
	Load        *simulate.HedgeResult `json:"load,omitempty"`
}

// Error is a policy that does not parse or validate, located.
type Error struct {
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"` // without the position; says "did you mean" when it can
	Caret   string `json:"caret"`   // the source line and a caret under the spot
}

// Finding is a lint finding, with Apply, the whole policy its fix turns
// the text into, or "" when the fix is advice rather than a policy.
type Finding struct {
	lint.Finding
	Apply string `json:"apply,omitempty"`
}

// Analyze parses text and, when it is a valid policy, explains it, lints
// it, runs it once with seed (attempts taking no time, as `schedcheck
// simulate --json --seed` does) and over BandSeeds seeds, and converts it
// to a gRPC retryPolicy where one fits.
func Analyze(text string, seed uint64) Analysis {
	a := Analysis{Findings: []Finding{}, Band: []simulate.Spread{}}
	s, err := parse.Parse(text)
	if err != nil {
		a.Error = locate(err)
		return a
	}
	a.Canonical, a.Infix = s.String(), parse.Format(s, parse.Infix)
	e := explain.Explain(s)
	a.Explanation = &e
	fs, err := lint.CheckSource(text)
	if err != nil {
		fs = lint.Check(s) // not reached: text parsed above
	}
	for _, f := range fs {
		a.Findings = append(a.Findings, Finding{Finding: f, Apply: applyFix(f)})
	}
	a.GRPC = ToGRPC(s)
	a.Hedge = hedge(s)
	if err := storm.Check(s, storm.Config{Clients: 1, Runs: 1}); err != nil {
		a.Simulated = strings.TrimPrefix(err.Error(), storm.ErrConfig.Error()+": ")
		return a
	}
	if r, err := simulate.Hedge(context.Background(), s, HedgeLatency, HedgeCalls, seed); err == nil {
		a.Hedge.Load = &r
	}
	r := simulate.Run(context.Background(), s, seed, 0, MaxAttempts)
	a.Run = &r
	a.Band = append(a.Band, simulate.Band(s, BandSeeds, PlotRetries)...)
	for _, b := range a.Band {
		a.Jittered = a.Jittered || b.Min != b.Max
	}
	return a
}

// hedge reads s as a hedging policy.
func hedge(s schedule.Schedule) *Hedge {
	h := &Hedge{Explanation: explain.Hedge(s).Explanation, Findings: []Finding{}}
	for _, f := range (lint.Options{For: lint.Hedge}).Check(s) {
		h.Findings = append(h.Findings, Finding{Finding: f, Apply: applyFix(f)})
	}
	return h
}

func locate(err error) *Error {
	var pe *parse.Error
	if errors.As(err, &pe) {
		msg := strings.TrimPrefix(pe.Error(), strconv.Itoa(pe.Line)+":"+strconv.Itoa(pe.Column)+": ")
		return &Error{Line: pe.Line, Column: pe.Column, Message: msg, Caret: pe.Caret()}
	}
	return &Error{Line: 1, Column: 1, Message: err.Error()}
}

// applyFix returns the policy f's fix turns the text into, in infix
// form, or "" when the fix is not a policy.
func applyFix(f lint.Finding) string {
	fixed, err := parse.Parse(f.Fix)
	if err != nil {
		return ""
	}
	return parse.Format(fixed, parse.Infix)
}
