package audit_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/recur-go/recur/audit"
	"github.com/recur-go/recur/parse"
)

func BenchmarkRun(b *testing.B) {
	for _, name := range []string{"pass.yaml", "fail.yaml"} {
		data, err := os.ReadFile(filepath.Join("..", "examples", "audit", name))
		if err != nil {
			b.Fatal(err)
		}
		p, err := audit.Decode(data)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				audit.Run(p)
			}
		})
	}
}

// BenchmarkMaxAttemptsCut is the most work MaxAttempts does: a policy
// bounded only by time whose run is cut at MaxCounted attempts.
func BenchmarkMaxAttemptsCut(b *testing.B) {
	s, err := parse.Parse("forever upto 1h")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		audit.MaxAttempts(s, time.Microsecond)
	}
}
