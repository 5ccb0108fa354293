package httpretry

import (
	"net/url"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
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
	var c targetCache
	for _, in := range []string{"http://Example.com/a", "http://example.com:80/b", "https://example.com/", "http://Example.com/c?d"} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := c.get(u), target(u); got != want {
			t.Errorf("get(%q) = %q, want %q", in, got, want)
		}
	}
	if n := len(*c.read.Load()); n != 3 {
		t.Errorf("%d entries, want 3 (one per scheme and Host)", n)
	}
	u, _ := url.Parse("http://example.com:80/x")
	if n := testing.AllocsPerRun(100, func() { c.get(u) }); n != 0 {
		t.Errorf("get of a known host: %v allocations, want 0", n)
	}
}

func TestTargetCacheBounded(t *testing.T) {
	var c targetCache
	for i := range maxTargets + 10 {
		u := &url.URL{Scheme: "http", Host: "h" + strconv.Itoa(i) + ".example"}
		if got, want := c.get(u), target(u); got != want {
			t.Fatalf("get(%v) = %q, want %q", u, got, want)
		}
	}
	if n := len(*c.read.Load()); n != maxTargets {
		t.Errorf("%d entries, want %d", n, maxTargets)
	}
	u := &url.URL{Scheme: "http", Host: "late.example:81"}
	if got := c.get(u); got != "http://late.example:81" {
		t.Errorf("get past the cap = %q", got)
	}
}

func TestTargetCacheConcurrent(t *testing.T) {
	var c targetCache
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				u := &url.URL{Scheme: "https", Host: "h" + strconv.Itoa((i+g)%20) + ".example"}
				if got, want := c.get(u), target(u); got != want {
					t.Errorf("get(%v) = %q, want %q", u, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := len(*c.read.Load()); n != 20 {
		t.Errorf("%d entries, want 20", n)
	}
}
