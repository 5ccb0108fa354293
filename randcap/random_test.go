package randcap_test

import (
	"sync"
	"testing"

	"github.com/recur-go/recur/randcap"
)

func TestSeeded(t *testing.T) {
	r := randcap.Seeded(42)
	for i := 0; i < 3; i++ {
		if got := r.Seed(); got != 42 {
			t.Errorf("Seed() = %d; want 42", got)
		}
	}
}

func TestRealDiffersAndIsConcurrent(t *testing.T) {
	r := randcap.Real()
	var mu sync.Mutex
	seen := map[uint64]bool{}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				s := r.Seed()
				mu.Lock()
				seen[s] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != 800 {
		t.Errorf("800 seeds from Real had %d distinct values", len(seen))
	}
}
