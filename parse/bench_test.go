package parse_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/recur-go/recur/grpcconfig"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

// benchPolicies are two classic policies in bare-millisecond spelling and
// a 10-node composite.
var benchPolicies = []struct{ name, src string }{
	{"seed-backoff", "Intersect(backoff(100, 30000), times(5))"},
	{"seed-andthen", "AndThen(Times(3), Spaced(60000))"},
	{"composite-10", "Union(Intersect(Jittered(Exponential(100ms, 200%, 30s), 50%, 100%), Times(5)), AndThen(Capped(Fibonacci(1s), 10s), UpTo(Spaced(1m), 1h)))"},
}

func BenchmarkParse(b *testing.B) {
	for _, p := range benchPolicies {
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(p.src)))
			for b.Loop() {
				if _, err := parse.Parse(p.src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkString is the canonical form as schedule.Schedule's String
// method prints it: a new string each time.
func BenchmarkString(b *testing.B) {
	for _, p := range benchPolicies {
		s, err := parse.Parse(p.src)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = s.String()
			}
		})
	}
}

// BenchmarkAppendText is the canonical form appended to a reused buffer,
// as a logger or encoder does through encoding.TextAppender.
func BenchmarkAppendText(b *testing.B) {
	for _, p := range benchPolicies {
		s, err := parse.Parse(p.src)
		if err != nil {
			b.Fatal(err)
		}
		pol := parse.Policy{Schedule: s}
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]byte, 0, 256)
			for b.Loop() {
				buf, _ = pol.AppendText(buf[:0])
			}
		})
	}
}

// BenchmarkFormatInfix is the infix form for people.
func BenchmarkFormatInfix(b *testing.B) {
	for _, p := range benchPolicies {
		s, err := parse.Parse(p.src)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = parse.Format(s, parse.Infix)
			}
		})
	}
}

// BenchmarkParseInfix is the composite in the infix form that Format
// prints: its chains inside parentheses are read by participle's grammar,
// where the canonical form has none.
func BenchmarkParseInfix(b *testing.B) {
	const src = "backoff(100ms, 30s) & times(5) | (capped(fibonacci(1s), 10s) then (spaced(1m0s) upto 1h0m0s))"
	b.Run("composite-10", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			if _, err := parse.Parse(src); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// grpcPolicies are policies that a gRPC service config's retryPolicy also
// says, each with its JSON form: the infix form Format prints and the
// canonical one. grpc-go reads a retryPolicy with encoding/json into a
// struct (package grpcconfig's RetryPolicy has that shape); BenchmarkVsJSON
// times that decoding beside Parse of the same policy.
var grpcPolicies = []struct{ name, src, json string }{
	{
		"fulljitter-infix",
		"fulljitter(100ms, 30s) & times(5)",
		`{"maxAttempts": 5, "initialBackoff": "0.1s", "maxBackoff": "30s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}`,
	},
	{
		"fulljitter-canonical",
		"Intersect(Jittered(Exponential(100ms, 200%, 30s), 0%, 100%), Times(5))",
		`{"maxAttempts": 5, "initialBackoff": "0.1s", "maxBackoff": "30s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}`,
	},
}

// nodes counts the nodes of a schedule.
func nodes(s schedule.Schedule) int {
	if s == nil {
		return 0
	}
	a, b := schedule.Children(s)
	return 1 + nodes(a) + nodes(b)
}

// BenchmarkVsJSON decodes a gRPC retryPolicy (sub-benchmark json) and
// parses the same policy (parse), in one binary. Both report allocs/node,
// the allocations divided by the schedule's node count.
func BenchmarkVsJSON(b *testing.B) {
	for _, p := range grpcPolicies {
		var rp grpcconfig.RetryPolicy
		if err := json.Unmarshal([]byte(p.json), &rp); err != nil {
			b.Fatal(err)
		}
		want, err := rp.Schedule(grpcconfig.FullJitter)
		if err != nil {
			b.Fatal(err)
		}
		if got, err := parse.Parse(p.src); err != nil || !reflect.DeepEqual(got, want) {
			b.Fatalf("Parse(%q) = %v, %v; the JSON says %v", p.src, got, err, want)
		}
		n := float64(nodes(want))
		data := []byte(p.json)
		b.Run(p.name+"/json", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var rp grpcconfig.RetryPolicy
				if err := json.Unmarshal(data, &rp); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(testing.AllocsPerRun(100, func() {
				var rp grpcconfig.RetryPolicy
				_ = json.Unmarshal(data, &rp)
			}))/n, "allocs/node")
		})
		b.Run(p.name+"/parse", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := parse.Parse(p.src); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(testing.AllocsPerRun(100, func() { _, _ = parse.Parse(p.src) })/n, "allocs/node")
		})
	}
}
