package redisretry_test

import (
	"context"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/redisretry"
	"github.com/recur-go/recur/retry"
	"github.com/redis/go-redis/v9"
)

// A hundred GETs marked idempotent against an address where nothing listens,
// with the zero Config but for a virtual clock and no breaker, make 103
// attempts where the default policy alone would make 300: the server's
// shared default budget allows three retries before it is half empty.
// Unthrottled is the policy alone. A Config.Budget registry of the same
// budgets throttles alike, with the budget of the client's address.
func TestDeadServerThrottledByDefault(t *testing.T) {
	for _, tc := range []struct {
		name        string
		unthrottled bool
		registry    bool
		want        int
	}{{"default", false, false, 103}, {"Unthrottled", true, false, 300}, {"registry", false, true, 103}} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := l.Addr().String()
			l.Close()
			attempts := 0
			var budgets *budget.Registry
			if tc.registry {
				if budgets, err = budget.NewRegistry(budget.DefaultConfig(), 0); err != nil {
					t.Fatal(err)
				}
			}
			c, err := redisretry.NewClient(&redis.Options{Addr: addr}, redisretry.Config{NoBreaker: true, Budget: budgets, Options: retry.Options{
				Caps:        retry.Caps{Clock: clockcap.Virtual(time.Now())},
				Unthrottled: tc.unthrottled,
				Observer: retry.ObserverFunc(func(_ context.Context, e retry.Event) {
					if e.Kind == retry.Attempted {
						attempts++
					}
				}),
			}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				c.Close()
				waitDialers(t) // go-redis's background dialer of a dead pool ends a second after Close
			})
			for range 100 {
				if err := c.Get(redisretry.WithIdempotent(context.Background()), "k").Err(); err == nil {
					t.Fatal("a GET to a closed port succeeded")
				}
			}
			t.Logf("100 GETs, %d attempts", attempts)
			if tc.registry {
				var targets []string
				for target := range budgets.All() {
					targets = append(targets, target)
				}
				if diff := cmp.Diff([]string{addr}, targets); diff != "" {
					t.Errorf("the registry's targets (-want +got)\n%s", diff)
				}
			}
			if attempts != tc.want {
				t.Errorf("100 GETs made %d attempts; want %d", attempts, tc.want)
			}
		})
	}
}

// waitDialers waits, at most 5 seconds, until no go-redis pool dialer
// goroutine is left, so that goleak sees none.
func waitDialers(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		buf := make([]byte, 1<<20)
		if !strings.Contains(string(buf[:runtime.Stack(buf, true)]), "(*ConnPool).tryDial") {
			return
		}
	}
	t.Error("go-redis's pool dialer still runs 5s after Close")
}
