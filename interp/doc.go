// Package interp steps a schedule.Schedule: it is the pure interpreter
// behind every runner.
//
// The first attempt is always made. After each attempt ends, the runner
// asks the Run once, passing when that attempt started and when it ended,
// both measured from the beginning of the run:
//
//	r := interp.Start(s, seed)
//	for {
//		start := elapsed()
//		err := attempt()
//		if err == nil {
//			break
//		}
//		delay, ok := r.Next(start, elapsed())
//		if !ok {
//			break // the schedule stopped: give up
//		}
//		sleep(delay)
//	}
//
// A Run reads no clock, draws no global randomness and starts no goroutine.
// Every random number it uses is a pure function of the run's seed, the
// drawing node's parameters and the decision number, so the same seed gives
// the same decisions, a Run marshalled between attempts resumes with
// identical decisions, and identical nodes draw identical numbers — which is
// why Union(a, a) ≡ a holds exactly, jitter included. Different seeds, one
// per real run, decorrelate clients, which is the point of jitter.
//
// A saved run is input like any other. Run.UnmarshalBinary refuses, with an
// error wrapping ErrInvalidState that names the field, a state that stepping
// the schedule could not have produced, and a resumed run never outlives its
// schedule: it makes no more attempts than schedule.Bounds allows, a Spaced
// slot comes within one period, an UpTo budget is not put off. Give a
// resumed run times measured from the same beginning as before.
//
// Stepping allocates nothing; Start allocates once, for the per-node state.
// Delays gives the delays of a run whose attempts take no time, for
// printing and for tests.
package interp
