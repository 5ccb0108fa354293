package breaker_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/verdict"
)

// textLogger logs to buf without timestamps.
func textLogger(buf *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
}

func TestTransitionsAreLogged(t *testing.T) {
	var buf bytes.Buffer
	b, clock := newBreaker(t, breaker.Config{Name: "db", Logger: textLogger(&buf)})
	for range 5 {
		call(b, verdict.Transient)
	}
	clock.Advance(5 * time.Second)
	call(b, verdict.Failure)
	clock.Advance(10 * time.Second)
	call(b, verdict.Success)
	b.ForceOpen()
	b.Disable()
	want := []string{
		`level=WARN msg="circuit breaker open" breaker=db from=closed reason="consecutive failures" for=5s opening=1`,
		`level=INFO msg="circuit breaker half-open" breaker=db from=open`,
		`level=WARN msg="circuit breaker open" breaker=db from=half-open reason="probe failed" for=10s opening=2`,
		`level=INFO msg="circuit breaker half-open" breaker=db from=open`,
		`level=INFO msg="circuit breaker closed" breaker=db from=half-open`,
		`level=WARN msg="circuit breaker forced-open" breaker=db from=closed`,
		`level=INFO msg="circuit breaker disabled" breaker=db from=forced-open`,
	}
	got := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
}

// The hook runs outside the breaker's lock, so it may call the breaker.
func TestHookMayCallTheBreaker(t *testing.T) {
	var b *breaker.Breaker
	var seen []string
	b, _ = newBreaker(t, breaker.Config{ConsecutiveFailures: 1, OnStateChange: func(_ string, from, to breaker.State) {
		st := b.Stats()
		seen = append(seen, fmt.Sprintf("%v>%v state=%v opened=%d", from, to, st.State, st.Opened))
		if to == breaker.Open {
			b.Reset()
		}
	}})
	call(b, verdict.Failure)
	want := []string{"closed>open state=open opened=1", "open>closed state=closed opened=1"}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("hook saw (-want +got):\n%s", diff)
	}
}

func TestRegistry(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	var opened []string
	r, err := breaker.NewRegistry(breaker.Config{ConsecutiveFailures: 1, Logger: textLogger(&buf), OnStateChange: func(name string, _, to breaker.State) {
		mu.Lock()
		defer mu.Unlock()
		opened = append(opened, name+" "+to.String())
	}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	a, b := r.Get("https://a:443"), r.Get("https://b:443")
	if a == b || r.Get("https://a:443") != a {
		t.Fatal("Get does not keep one breaker per target")
	}
	if a.Name() != "https://a:443" {
		t.Errorf("Name = %q", a.Name())
	}
	c, d := r.Get("https://c:443"), r.Get("https://d:443")
	if c != d || c.Name() != breaker.Overflow {
		t.Errorf("past the cap got %q and %q; want the shared %q", c.Name(), d.Name(), breaker.Overflow)
	}
	call(a, verdict.Failure)
	call(d, verdict.Failure)
	var states []string
	for target, br := range r.All() {
		states = append(states, target+" "+br.State().String())
	}
	if diff := cmp.Diff([]string{"https://a:443 open", "https://b:443 closed", "(other) open"}, states); diff != "" {
		t.Errorf("All (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"https://a:443 open", "(other) open"}, opened); diff != "" {
		t.Errorf("OnStateChange (-want +got):\n%s", diff)
	}
	if r.Len() != 2 || r.Spills() != 2 {
		t.Errorf("Len, Spills = %d, %d; want 2, 2", r.Len(), r.Spills())
	}
	if !strings.Contains(buf.String(), `level=WARN msg="circuit breaker registry full; new targets share one breaker" max=2 breaker=(other)`) {
		t.Errorf("no warning when the registry filled up; log:\n%s", buf.String())
	}
	if n := testing.AllocsPerRun(100, func() { r.Get("https://a:443") }); n != 0 {
		t.Errorf("Get of a known target allocates %v times", n)
	}
}

// A target spelled like the overflow breaker's name gets the overflow
// breaker: All names each breaker once, and nothing logs a full registry
// that is not full.
func TestRegistryOverflowNameIsReserved(t *testing.T) {
	var buf bytes.Buffer
	r, _ := breaker.NewRegistry(breaker.Config{Logger: textLogger(&buf)}, 2)
	o := r.Get(breaker.Overflow)
	r.Get("https://a:443")
	r.Get("https://b:443")
	if got := r.Get("https://c:443"); got != o {
		t.Error("past the cap, a new target did not get the breaker Get(Overflow) gave")
	}
	seen := map[string]int{}
	for name := range r.All() {
		seen[name]++
	}
	if diff := cmp.Diff(map[string]int{"https://a:443": 1, "https://b:443": 1, breaker.Overflow: 1}, seen); diff != "" {
		t.Errorf("names All yields (-want +got):\n%s", diff)
	}
	if strings.Contains(buf.String(), "registry full") {
		t.Errorf("warned of a full registry on Get(Overflow) with room left:\n%s", buf.String())
	}
}
