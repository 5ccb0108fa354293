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
	const counter, win = 16, window.Counters*8 + 8 // a count and its owner; counts and an owner
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
			{"TokenBucket.requests", unsafe.Pointer(tb), tb.requests.At(), counter},
			{"TokenBucket.retries", unsafe.Pointer(tb), tb.retries.At(), counter},
			{"TokenBucket.throttled", unsafe.Pointer(tb), tb.throttled.At(), counter},
			{"Adaptive.win", unsafe.Pointer(a), window.PendingAt(&a.win), win},
			{"Adaptive.requests", unsafe.Pointer(a), a.requests.At(), counter},
			{"Adaptive.refused", unsafe.Pointer(a), a.refused.At(), counter},
			{"Adaptive.retries", unsafe.Pointer(a), a.retries.At(), counter},
			{"Adaptive.throttled", unsafe.Pointer(a), a.throttled.At(), counter},
			{"Ratio.win", unsafe.Pointer(r), window.PendingAt(&r.win), win},
			{"Ratio.left", unsafe.Pointer(r), unsafe.Pointer(&r.left), 8},
			{"Ratio.throttled", unsafe.Pointer(r), r.throttled.At(), counter},
		}
		for _, f := range fields {
			if !stripe.Apart(f.obj, f.p, f.live) {
				t.Errorf("%s at %p: its stripes share cache lines", f.name, f.p)
			}
		}
	}
}
