package httpretry

import (
	"net/url"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/retry"
)

func TestTarget(t *testing.T) {
	for in, want := range map[string]string{
		"http://example.com/x?y":        "http://example.com:80",
		"https://Example.COM":           "https://example.com:443",
		"http://example.com:8080/":      "http://example.com:8080",
		"http://EXAMPLE.com:8080/":      "http://example.com:8080",
		"https://[::1]/":                "https://[::1]:443",
		"https://[::1]:8443/":           "https://[::1]:8443",
		"http://user:pw@127.0.0.1:9/p":  "http://127.0.0.1:9",
		"ftp://files.example.com/a.txt": "ftp://files.example.com:",
	} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, target(u)); diff != "" {
			t.Errorf("target(%q) (-want +got):\n%s", in, diff)
		}
	}
}

func TestTargetCache(t *testing.T) {
	breakers, err := breaker.NewRegistry(breaker.Config{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	budgets, err := budget.NewRegistry(budget.DefaultConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg := (&Transport{Breaker: breakers, Budget: budgets}).build()
	for _, in := range []string{"http://Example.com/a", "http://example.com:80/b", "https://example.com/", "http://Example.com/c?d"} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		want := guards{target(u), breakers.Get(target(u)), budgets.Get(target(u))}
		if got := cfg.guardsOf(u); got != want {
			t.Errorf("guardsOf(%q) = %+v, want %+v", in, got, want)
		}
	}
	if n, m := len(*cfg.targets.http.Load()), len(*cfg.targets.https.Load()); n != 2 || m != 1 {
		t.Errorf("%d http and %d https entries, want 2 and 1 (one per Host)", n, m)
	}
	u, _ := url.Parse("http://example.com:80/x")
	if n := testing.AllocsPerRun(100, func() { cfg.guardsOf(u) }); n != 0 {
		t.Errorf("guardsOf a known host: %v allocations, want 0", n)
	}
	u, _ = url.Parse("ftp://example.com/x")
	if got := cfg.guardsOf(u).target; got != "ftp://example.com:" {
		t.Errorf("guardsOf(ftp) = %q", got)
	}
}

// TestTargetCacheDefaultBudget: without a Budget, a Transport's guards
// have the target's shared default budget, from the cache too, and an
// Unthrottled Transport's have none.
func TestTargetCacheDefaultBudget(t *testing.T) {
	u, _ := url.Parse("http://default-budget.example/")
	cfg := (&Transport{}).build()
	for range 2 {
		if g := cfg.guardsOf(u); g.budget != budget.Shared().Get(g.target) || g.breaker != nil {
			t.Errorf("guards = %+v, want the shared default budget and no breaker", g)
		}
	}
	cfg = (&Transport{Options: retry.Options{Unthrottled: true}}).build()
	if g := cfg.guardsOf(u); g.budget != nil || g.breaker != nil || g.target != "http://default-budget.example:80" {
		t.Errorf("unthrottled guards = %+v", g)
	}
}

func TestTargetCacheBounded(t *testing.T) {
	// Unthrottled: budget.Shared, which the other tests share, could be full.
	cfg := (&Transport{Options: retry.Options{Unthrottled: true}}).build()
	for i := range maxTargets + 10 {
		u := &url.URL{Scheme: "http", Host: "h" + strconv.Itoa(i) + ".example"}
		if got, want := cfg.guardsOf(u).target, target(u); got != want {
			t.Fatalf("guardsOf(%v) = %q, want %q", u, got, want)
		}
	}
	if n := len(*cfg.targets.http.Load()); n != maxTargets {
		t.Errorf("%d entries, want %d", n, maxTargets)
	}
	u := &url.URL{Scheme: "http", Host: "late.example:81"}
	if got := cfg.guardsOf(u).target; got != "http://late.example:81" {
		t.Errorf("guardsOf past the cap = %q", got)
	}
}

// TestTargetCacheOverflow: a registry's overflow entry is not kept, so
// that each request past the registry's cap counts a spill, as without
// the cache, while the targets with an entry of their own are kept.
func TestTargetCacheOverflow(t *testing.T) {
	breakers, err := breaker.NewRegistry(breaker.Config{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := (&Transport{Breaker: breakers, Options: retry.Options{Unthrottled: true}}).build()
	own := &url.URL{Scheme: "http", Host: "own.example"}
	over := &url.URL{Scheme: "http", Host: "over.example"}
	for range 3 {
		cfg.guardsOf(own)
		cfg.guardsOf(over)
	}
	if n := breakers.Spills(); n != 3 {
		t.Errorf("%d spills, want 3", n)
	}
	if m := *cfg.targets.http.Load(); len(m) != 1 || m["own.example"].target != "http://own.example:80" {
		t.Errorf("kept %v, want own.example alone", m)
	}
}

func TestTargetCacheConcurrent(t *testing.T) {
	cfg := (&Transport{Options: retry.Options{Unthrottled: true}}).build()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				u := &url.URL{Scheme: "https", Host: "h" + strconv.Itoa((i+g)%20) + ".example"}
				if got, want := cfg.guardsOf(u).target, target(u); got != want {
					t.Errorf("guardsOf(%v) = %q, want %q", u, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := len(*cfg.targets.https.Load()); n != 20 {
		t.Errorf("%d entries, want 20", n)
	}
}
