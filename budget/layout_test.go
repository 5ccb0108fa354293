package budget

import (
	"testing"
	"unsafe"

	"github.com/recur-go/recur/internal/stripe"
	"github.com/recur-go/recur/internal/window"
)

// Every striped counter and window, as allocated, has its stripes in a
// cache line each, and so does each atomic that every call writes.
func TestLayout(t *testing.T) {
	const counter, win = 8, window.Counters * 8
	for range 10 {
		tb, _ := NewTokenBucket(TokenBucketConfig{})
		a, _ := NewAdaptive(AdaptiveConfig{})
		r, _ := NewRatio(RatioConfig{})
		fields := []struct {
			name string
			p    unsafe.Pointer
			live uintptr
		}{
			{"TokenBucket.tokens", unsafe.Pointer(&tb.tokens), counter},
			{"TokenBucket.requests", unsafe.Pointer(&tb.requests), counter},
			{"TokenBucket.retries", unsafe.Pointer(&tb.retries), counter},
			{"TokenBucket.throttled", unsafe.Pointer(&tb.throttled), counter},
			{"Adaptive.win", unsafe.Pointer(&a.win), win},
			{"Adaptive.requests", unsafe.Pointer(&a.requests), counter},
			{"Adaptive.refused", unsafe.Pointer(&a.refused), counter},
			{"Adaptive.retries", unsafe.Pointer(&a.retries), counter},
			{"Adaptive.throttled", unsafe.Pointer(&a.throttled), counter},
			{"Ratio.win", unsafe.Pointer(&r.win), win},
			{"Ratio.left", unsafe.Pointer(&r.left), counter},
			{"Ratio.throttled", unsafe.Pointer(&r.throttled), counter},
		}
		for _, f := range fields {
			if !stripe.Apart(f.p, f.live) {
				t.Errorf("%s at %p: its stripes share cache lines", f.name, f.p)
			}
		}
	}
}
