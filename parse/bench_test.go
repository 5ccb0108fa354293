package parse_test

import (
	"testing"

	"github.com/recur-go/recur/parse"
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
