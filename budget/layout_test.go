package budget

import (
	"testing"
	"unsafe"

	"github.com/recur-go/recur/internal/stripe"
	"github.com/recur-go/recur/internal/window"
)

// Every striped counter and window, as allocated, has its stripes in a
// cache line each, past the first, and so does each atomic that every
// call writes.
func TestLayout(t *testing.T) {
	const counter, win = stripe.Width*8 + 8, window.LiveBytes // counts and an owner
	for range 10 {
		tb, _ := NewTokenBucket(TokenBucketConfig{})
		a, _ := NewAdaptive(AdaptiveConfig{})
		r, _ := NewRatio(RatioConfig{})
		fields := []struct {
			name   string
			obj, p unsafe.Pointer
			live   uintptr
		}{
			{"TokenBucket.tokens", unsafe.Pointer(tb), unsafe.Pointer(&tb.tokens), 8},
			{"TokenBucket.stats", unsafe.Pointer(tb), tb.stats.At(), counter},
			{"Adaptive.win", unsafe.Pointer(a), window.PendingAt(&a.win), win},
			{"Adaptive.stats", unsafe.Pointer(a), a.stats.At(), counter},
			{"Ratio.win", unsafe.Pointer(r), window.PendingAt(&r.win), win},
			{"Ratio.left", unsafe.Pointer(r), unsafe.Pointer(&r.left), 8},
			{"Ratio.stats", unsafe.Pointer(r), r.stats.At(), counter},
		}
		for _, f := range fields {
			if !stripe.Apart(f.obj, f.p, f.live) {
				t.Errorf("%s at %p: its stripes share cache lines", f.name, f.p)
			}
		}
	}
}
