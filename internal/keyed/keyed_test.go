package keyed

import (
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type entry struct{ key string }

func TestCapAndOverflow(t *testing.T) {
	made := 0
	m := New(2, "(other)", func(k string) *entry { made++; return &entry{k} })
	a, b := m.Get("a"), m.Get("b")
	c, d := m.Get("c"), m.Get("d")
	if m.Get("a") != a || m.Get("b") != b {
		t.Error("Get of an existing key returned a new entry")
	}
	if c != d || c.key != "(other)" {
		t.Errorf("past the cap: c = %v, d = %v; want one shared overflow entry", c, d)
	}
	var keys []string
	for k, v := range m.All() {
		keys = append(keys, k+"="+v.key)
	}
	if diff := cmp.Diff([]string{"a=a", "b=b", "(other)=(other)"}, keys); diff != "" {
		t.Errorf("All (-want +got):\n%s", diff)
	}
	if got := []any{m.Len(), m.Spills(), made}; !cmp.Equal(got, []any{2, uint64(2), 3}) {
		t.Errorf("Len, Spills, made = %v; want [2 2 3]", got)
	}
}

func TestConcurrentGet(t *testing.T) {
	m := New(50, "(other)", func(k string) *entry { return &entry{k} })
	var wg sync.WaitGroup
	got := make([][]*entry, 8)
	for g := range got {
		wg.Go(func() {
			for i := range 100 {
				got[g] = append(got[g], m.Get(fmt.Sprint(i)))
			}
		})
	}
	wg.Wait()
	for g := range got {
		for i, e := range got[g] {
			if e != got[0][i] {
				t.Fatalf("goroutine %d key %d got a different entry than goroutine 0", g, i)
			}
		}
	}
	if m.Len() != 50 {
		t.Errorf("Len = %d; want 50", m.Len())
	}
}

func TestGetExistingDoesNotAllocate(t *testing.T) {
	m := New(10, "(other)", func(k string) *entry { return &entry{k} })
	m.Get("https://example.com:443")
	key := "https://example.com:443"
	if n := testing.AllocsPerRun(100, func() { m.Get(key) }); n != 0 {
		t.Errorf("Get allocates %v times", n)
	}
}

// The overflow name is reserved: a key spelled like it gets the overflow
// entry, so All never yields two entries under one name.
func TestOverflowNameIsReserved(t *testing.T) {
	m := New(2, "(other)", func(k string) *entry { return &entry{k} })
	a, o := m.Get("a"), m.Get("(other)")
	m.Get("b")
	if spilled := m.Get("c"); spilled != o {
		t.Errorf("past the cap: %v; want the entry Get(overflow) gave, %v", spilled, o)
	}
	var names []string
	for k, v := range m.All() {
		names = append(names, k+"="+v.key)
	}
	if diff := cmp.Diff([]string{"a=a", "b=b", "(other)=(other)"}, names); diff != "" {
		t.Errorf("All (-want +got):\n%s", diff)
	}
	if got := []any{m.Len(), m.Spills(), m.Get("a") == a}; !cmp.Equal(got, []any{2, uint64(1), true}) {
		t.Errorf("Len, Spills, a kept = %v; want [2 1 true]", got)
	}
}

// Keys added one at a time, each read once by every goroutine: every
// reader sees every key's one entry, whichever snapshot it reads.
func TestConcurrentGrowth(t *testing.T) {
	m := New(1000, "(other)", func(k string) *entry { return &entry{k} })
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i := range 1000 {
				if e := m.Get(fmt.Sprint(i)); e.key != fmt.Sprint(i) {
					t.Errorf("key %d: entry %q", i, e.key)
					return
				}
			}
		})
	}
	wg.Wait()
	if m.Len() != 1000 || m.Spills() != 0 {
		t.Errorf("Len, Spills = %d, %d; want 1000, 0", m.Len(), m.Spills())
	}
}

// BenchmarkAddKeys adds 10,000 new keys to an empty map: with a
// copy-on-write map that copies on every new key this is quadratic (1.5 s
// and 2.3 GB); amortised, it is linear.
func BenchmarkAddKeys(b *testing.B) {
	keys := make([]string, 10_000)
	for i := range keys {
		keys[i] = fmt.Sprintf("https://host-%d.example:443", i)
	}
	b.ReportAllocs()
	for b.Loop() {
		m := New(len(keys), "(other)", func(k string) *entry { return &entry{k} })
		for _, k := range keys {
			m.Get(k)
		}
	}
}
