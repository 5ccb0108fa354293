package window

// Batch returns how many pending events call for a flush, as Add judges
// it. An owner that counts events in front of the window, in counters of
// its own, uses it to decide when to move them in (with Add) and flush.
func (w *Window) Batch() int64 { return w.batch.Load() }
