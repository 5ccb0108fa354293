package sat_test

import (
	"math"
	"math/big"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/recur-go/recur/capi/internal/sat"
)

func TestEdges(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want int64
	}{
		{"add zero", sat.Add(0, 0), 0},
		{"add exact max", sat.Add(math.MaxInt64-1, 1), math.MaxInt64},
		{"add over", sat.Add(math.MaxInt64, 1), math.MaxInt64},
		{"add max max", sat.Add(math.MaxInt64, math.MaxInt64), math.MaxInt64},
		{"mul zero", sat.Mul(0, math.MaxInt64), 0},
		{"mul exact", sat.Mul(1<<31, 1<<31), 1 << 62},
		{"mul just over", sat.Mul(1<<32, 1<<31), math.MaxInt64},
		{"mul wraps to small", sat.Mul(1<<33, 1<<33), math.MaxInt64},
		{"muldur", int64(sat.MulDur(time.Hour, math.MaxInt64/int64(time.Hour)+1)), math.MaxInt64},
		{"muldur small", int64(sat.MulDur(3*time.Second, 4)), int64(12 * time.Second)},
		{"adddur", int64(sat.AddDur(time.Duration(math.MaxInt64), time.Nanosecond)), math.MaxInt64},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, c.got, c.want)
		}
	}
}

// TestPropExact: both agree with exact big-integer arithmetic clamped at Max.
func TestPropExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.Int64Min(0).Draw(t, "a")
		b := rapid.Int64Min(0).Draw(t, "b")
		clamp := func(z *big.Int) int64 {
			if z.IsInt64() {
				return z.Int64()
			}
			return sat.Max
		}
		if got, want := sat.Add(a, b), clamp(new(big.Int).Add(big.NewInt(a), big.NewInt(b))); got != want {
			t.Fatalf("Add(%d, %d) = %d, want %d", a, b, got, want)
		}
		if got, want := sat.Mul(a, b), clamp(new(big.Int).Mul(big.NewInt(a), big.NewInt(b))); got != want {
			t.Fatalf("Mul(%d, %d) = %d, want %d", a, b, got, want)
		}
	})
}
