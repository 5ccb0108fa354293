package breaker

import (
	"testing"
	"unsafe"

	"github.com/recur-go/recur/internal/stripe"
	"github.com/recur-go/recur/internal/window"
)

// The window's pending stripes, which every call writes, lie in a cache
// line each, past the first line, in a breaker as New allocates it.
func TestLayout(t *testing.T) {
	for range 10 {
		b, err := New(Config{})
		if err != nil {
			t.Fatal(err)
		}
		if p := window.PendingAt(&b.win); !stripe.Apart(unsafe.Pointer(b), p, window.LiveBytes) {
			t.Errorf("a Breaker's window at %p: its stripes share cache lines", p)
		}
		if a := uintptr(unsafe.Pointer(&b.consec)); a/stripe.LineSize == uintptr(unsafe.Pointer(&b.word))/stripe.LineSize {
			t.Errorf("a Breaker's failure streak shares a line with its word")
		}
	}
}
