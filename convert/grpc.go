package convert

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/recur-go/recur/grpcconfig"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

// FromRecur reads one policy in recur's language (parse.Parse).
func FromRecur(data []byte) (Result, error) {
	s, err := parse.Parse(string(data))
	if err != nil {
		return Result{}, err
	}
	return Result{Schedule: s}, nil
}

// ToRecur writes s in canonical form, with a final newline.
func ToRecur(s schedule.Schedule) ([]byte, error) {
	if err := schedule.Validate(s); err != nil {
		return nil, err
	}
	return []byte(s.String() + "\n"), nil
}

// FromGRPC reads a gRPC service config (an object with methodConfig), or a
// single retryPolicy object, with package grpcconfig, which checks it as
// gRPC does. Each method config is one Result, named
// "methodConfig[i] NAMES", and its schedule is
// grpcconfig.RetryPolicy.Schedule's with gRFC A6's full jitter, as first
// published; a Note says that grpc-go v1.85 and later jitter ±20% instead
// (grpcconfig.PlusMinus20). A method config without a retryPolicy is
// Times(1), not retried; one with a hedgingPolicy gets the hedging
// schedule, for retry.Hedge, with a Note. retryableStatusCodes and
// retryThrottling are Retained.
func FromGRPC(data []byte) ([]Result, error) {
	d := doc{format: GRPC, norm: func(s string) string { return s }}
	root, err := d.decode(data) // the limits, before grpcconfig reads it
	if err != nil {
		return nil, err
	}
	es, err := d.mapping(root, "")
	if err != nil {
		return nil, err
	}
	isServiceConfig := false
	for _, e := range es {
		if e.key == "methodConfig" || e.key == "retryThrottling" {
			isServiceConfig = true
		}
	}
	if !isServiceConfig {
		var p grpcconfig.RetryPolicy
		dec := json.NewDecoder(bytes.NewReader(data))
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("convert: grpc: %w", err)
		}
		if err := p.Validate(); err != nil {
			return nil, fmt.Errorf("convert: grpc: retryPolicy: %w", err)
		}
		r, err := grpcResult(&p, "")
		if err != nil {
			return nil, err
		}
		return []Result{r}, nil
	}
	sc, err := grpcconfig.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("convert: grpc: %w", err)
	}
	if len(sc.Methods) == 0 {
		return nil, &FieldError{Format: GRPC, Path: "methodConfig", Msg: "there is no method config, so no retry policy"}
	}
	var out []Result
	for i, mc := range sc.Methods {
		var names []string
		for _, n := range mc.Names {
			names = append(names, n.String())
		}
		at := "methodConfig[" + strconv.Itoa(i) + "]"
		name := at
		if len(names) > 0 {
			name += " " + strings.Join(names, ", ")
		}
		var r Result
		switch {
		case mc.RetryPolicy != nil:
			if r, err = grpcResult(mc.RetryPolicy, at+".retryPolicy"); err != nil {
				return nil, err
			}
		case mc.HedgingPolicy != nil:
			if r.Schedule, err = mc.HedgingPolicy.Schedule(); err != nil {
				return nil, fmt.Errorf("convert: grpc: %s.hedgingPolicy: %w", name, err)
			}
			r.Notes = []string{"a hedgingPolicy: the delays say when each further copy of the call starts, for retry.Hedge, not when a failed call is retried"}
		default:
			r.Schedule = schedule.Times{N: 1}
			r.Notes = []string{"no retryPolicy: these methods are not retried"}
		}
		r.Name = name
		if sc.Throttling != nil {
			r.Retained = append(r.Retained, Field{Path: "retryThrottling",
				Value: fmt.Sprintf(`{"maxTokens": %d, "tokenRatio": %s}`, sc.Throttling.MaxTokens, strconv.FormatFloat(sc.Throttling.TokenRatio, 'g', -1, 64)),
				Use:   "a retry budget, not a schedule: budget.NewTokenBucket with this budget.TokenBucketConfig"})
		}
		out = append(out, r)
	}
	return out, nil
}

func grpcResult(p *grpcconfig.RetryPolicy, at string) (Result, error) {
	s, err := p.Schedule(grpcconfig.FullJitter)
	if err != nil {
		return Result{}, fmt.Errorf("convert: grpc: %s: %w", at, err)
	}
	r := Result{Schedule: s, Notes: p.Notes()}
	r.Notes = append(r.Notes, "full jitter, gRFC A6 as first published; grpc-go v1.85 and later jitter ±20% instead (grpcconfig.PlusMinus20)")
	codes := make([]string, len(p.RetryableStatusCodes))
	for i, c := range p.RetryableStatusCodes {
		codes[i] = strconv.Quote(c.String())
	}
	r.Retained = append(r.Retained, Field{Path: join(at, "retryableStatusCodes"), Value: "[" + strings.Join(codes, ", ") + "]",
		Use: "which errors to retry is not a schedule's: grpcretry retries these codes (grpcretry.Config), or a worth function"})
	return r, nil
}

// ToGRPC writes s as a service config's retryPolicy object, with
// grpcconfig.FromSchedule: Jittered(Exponential(…), 0%, 100%), full
// jitter, with Times(2) to Times(5). The policy retries UNAVAILABLE,
// grpcretry's default. A ±20% jitter is refused: the JSON cannot say it,
// and FromGRPC reads full jitter.
func ToGRPC(s schedule.Schedule) ([]byte, error) {
	p, j, err := grpcconfig.FromSchedule(s)
	switch {
	case errors.Is(err, grpcconfig.ErrNoEquivalent):
		return nil, fmt.Errorf("convert: grpc: %w: %w", ErrNoEquivalent, err)
	case err != nil:
		return nil, fmt.Errorf("convert: grpc: %w", err)
	case j != grpcconfig.FullJitter:
		return nil, noEquivalent(GRPC, s, "a retryPolicy does not say which jitter a client applies, and FromGRPC reads it as full jitter; write fulljitter(base, cap) & times(n)")
	}
	return json.Marshal(p)
}
