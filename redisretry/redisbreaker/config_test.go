package redisbreaker_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/breaker/breakertest"
	"github.com/recur-go/recur/redisretry/redisbreaker"
	"github.com/redis/go-redis/v9"
)

func TestConfigErrors(t *testing.T) {
	plain := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer plain.Close()
	good := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", ContextTimeoutEnabled: true})
	defer good.Close()
	for _, tc := range []struct {
		name string
		c    redisbreaker.Config
		want string
	}{
		{"no client", redisbreaker.Config{}, "Client is nil"},
		{"no context timeouts", redisbreaker.Config{Client: plain}, "ContextTimeoutEnabled"},
		{"negative timeout", redisbreaker.Config{Client: good, Timeout: -1}, "Timeout"},
		{"negative TTL", redisbreaker.Config{Client: good, TTL: -1}, "TTL"},
		{"shared guard", redisbreaker.Config{Client: good, Guard: breaker.Config{Shared: breakertest.NewMemStore(nil)}}, "Guard.Shared"},
		{"bad guard", redisbreaker.Config{Client: good, Guard: breaker.Config{MinCalls: -1}}, "MinCalls"},
	} {
		_, err := redisbreaker.New(tc.c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %s", tc.name, err, tc.want)
		}
	}
}

// The keys: one hash tag, so that a cluster keeps them in one slot.
func TestKeys(t *testing.T) {
	good := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", ContextTimeoutEnabled: true})
	defer good.Close()
	s, err := redisbreaker.New(redisbreaker.Config{Client: good, Prefix: "svc:"})
	if err != nil {
		t.Fatal(err)
	}
	state, window, probes, channel := s.Keys("api")
	got := []string{state, window, probes, channel}
	want := []string{"svc:{api}:state", "svc:{api}:window", "svc:{api}:probes", "svc:{api}:events"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
}
