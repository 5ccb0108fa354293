// Package randcap provides the Random capability: where a run's seed
// comes from.
//
// A run of a schedule draws all of its randomness from one 64-bit seed (see
// package interp). Real gives every run a fresh seed, which is what
// decorrelates clients in production. Seeded pins the seed, so a test gets
// the same jitter every time.
package randcap

import "math/rand/v2"

// Random is the source of per-run seeds.
type Random interface {
	// Seed returns the seed of a new run.
	Seed() uint64
}

// Real returns a source of fresh random seeds. It is safe for concurrent
// use.
func Real() Random { return realRandom{} }

type realRandom struct{}

func (realRandom) Seed() uint64 { return rand.Uint64() }

// Seeded returns a source that gives every run the seed n, so that a run
// makes exactly the decisions of interp.Start(s, n). It is safe for
// concurrent use.
func Seeded(n uint64) Random { return seeded(n) }

type seeded uint64

func (s seeded) Seed() uint64 { return uint64(s) }
