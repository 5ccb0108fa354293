package budget

// Exact makes b's window read the clock for every call, so that its counts
// can be compared with an exact model.
func Exact(b Budget) Budget {
	switch b := b.(type) {
	case *Ratio:
		b.win.Init(b.win.Width(), 1, true)
	case *Adaptive:
		b.win.Init(b.win.Width(), 1, true)
	}
	return b
}

// SetCoin makes a's coin flips return f() instead of its random numbers.
func SetCoin(a *Adaptive, f func() float64) { a.coin = f }
