// Package schedule defines retry and repeat policies as plain values.
//
// A Schedule answers one question, asked after every attempt: try again,
// and after how long, or stop? The answer is built from sixteen variants,
// each a small comparable struct:
//
//	Times{N}                       at most N attempts in all, no delay
//	Spaced{Every}                  one attempt per slot on a fixed grid
//	Exponential{Base, FactorPct, Cap, FactorFrac}
//	                               Base, then ×factor each time, at most Cap; the
//	                               factor is FactorPct + FactorFrac/10000 percent
//	Fibonacci{Base}                Base·fib(k): 1, 1, 2, 3, 5, 8 … times Base
//	Jittered{Inner, LowPct, HighPct, LowFrac, HighFrac}
//	                               Inner's delay scaled by a random low..high %
//	Union{A, B}                    while either continues; the shorter delay
//	Intersect{A, B}                while both continue; the longer delay
//	AndThen{First, Then}           First until it stops, then Then
//	UpTo{Inner, Budget}            Inner, but no attempt after Budget from the start
//	Forever{}                      always again, no delay
//	Capped{Inner, Max}             Inner's delay, at most Max
//	Decorrelated{Base, Cap}        AWS decorrelated jitter
//	Linear{Base, Step}             Base, then Step more each time
//	Random{Lo, Hi}                 a random wait in [Lo, Hi]
//	Sum{A, B}                      while both continue; the delays added (a + b)
//	WhileBelow{Inner, Limit}       Inner, but give up on a wait of Limit or more
//
// Because a variant holds no pointers, slices or maps, == is structural
// equality: two schedules that print the same are equal, and a schedule can
// be a map key, a log attribute or a field of a comparable config struct.
//
// The usual policy — back off exponentially with jitter, at most five
// attempts — is
//
//	schedule.Intersect{A: schedule.Backoff(100*time.Millisecond, 30*time.Second), B: schedule.Times{N: 5}}
//
// whose String form, also accepted by package parse, is
//
//	Intersect(Jittered(Exponential(100ms, 200%, 30s), 50%, 100%), Times(5))
//
// A Schedule is a description only: it holds no clock and no state. Package
// interp steps it; packages retry and repeat run an operation on it. Validate
// reports the first invalid node with its path; Simplify rewrites a schedule
// into an equivalent smaller one; Bounds tells, without running it, how many
// attempts and how much waiting a schedule allows.
package schedule
