package mongorecur_test

import (
	"context"
	"errors"
	"testing"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/mongorecur"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

func TestNew(t *testing.T) {
	mc := &mongo.Client{} // never connected: these calls do not reach it
	if _, err := mongorecur.New(nil, mongorecur.Config{}); err == nil {
		t.Error("New(nil) succeeded")
	}
	reg, err := breaker.NewRegistry(breaker.Config{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mongorecur.New(mc, mongorecur.Config{Breaker: reg, NoBreaker: true}); err == nil {
		t.Error("New with Breaker and NoBreaker succeeded")
	}

	db, err := mongorecur.New(mc, mongorecur.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if db.Mongo() != mc {
		t.Error("Mongo() is not the client given")
	}
	if db.Breaker() == nil || db.Breaker().Name() != mongorecur.DefaultBreakerName {
		t.Errorf("the default breaker: %v", db.Breaker())
	}

	off, err := mongorecur.New(mc, mongorecur.Config{NoBreaker: true})
	if err != nil {
		t.Fatal(err)
	}
	if off.Breaker() != nil {
		t.Error("NoBreaker made a breaker")
	}
	// Without a breaker, errors pass and done contexts are still refused.
	boom := errors.New("boom")
	for range 10 {
		if err := off.Do(context.Background(), func(context.Context) error { return boom }); err != boom {
			t.Fatalf("Do without a breaker = %v", err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	if err := off.Do(ctx, func(context.Context) error { ran = true; return nil }); err != context.Canceled || ran {
		t.Fatalf("Do without a breaker, done context: %v, ran %v", err, ran)
	}
	if err := db.Do(context.Background(), nil); err == nil {
		t.Error("Do(nil) succeeded")
	}
	if _, err := mongorecur.Call[int](context.Background(), nil, func(context.Context) (int, error) { return 1, nil }); err == nil {
		t.Error("Call on a nil Client succeeded")
	}
}

// TestBreakerRegistry: a Client's breaker is its registry's breaker for
// DefaultBreakerName, so Clients given one registry share it, and Clients
// given none each have their own.
func TestBreakerRegistry(t *testing.T) {
	reg, err := breaker.NewRegistry(breaker.Config{ConsecutiveFailures: 2}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var clients []*mongorecur.Client
	for _, c := range []mongorecur.Config{{Breaker: reg}, {Breaker: reg}, {}, {}} {
		db, err := mongorecur.New(&mongo.Client{}, c)
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, db)
	}
	if clients[0].Breaker() != reg.Get(mongorecur.DefaultBreakerName) || clients[1].Breaker() != clients[0].Breaker() {
		t.Error("Clients given one registry do not share its breaker for DefaultBreakerName")
	}
	if clients[2].Breaker() == nil || clients[2].Breaker() == clients[3].Breaker() || clients[2].Breaker() == clients[0].Breaker() {
		t.Error("Clients given no registry do not have a breaker each")
	}
	for range 2 {
		_ = clients[1].Do(context.Background(), func(context.Context) error { return mongo.CommandError{Labels: []string{"NetworkError"}} })
	}
	if got := clients[0].Breaker().State(); got != breaker.Open {
		t.Errorf("the shared breaker after 2 failures through the other Client: %v, want open", got)
	}
}

// TestPanicCountsNothing: a panicking operation gives a half-open
// breaker's probe slot back, and the panic goes on.
func TestPanicCountsNothing(t *testing.T) {
	reg, err := breaker.NewRegistry(breaker.Config{ConsecutiveFailures: 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	db, _ := mongorecur.New(&mongo.Client{}, mongorecur.Config{Breaker: reg})
	b := db.Breaker()
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the panic was swallowed")
			}
		}()
		db.Do(context.Background(), func(context.Context) error { panic("op") })
	}()
	if st := b.Stats(); st.Failures != 0 || st.Successes != 0 || st.State != breaker.Closed {
		t.Fatalf("a panic counted: %+v", st)
	}
}
