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
	if _, err := mongorecur.New(nil, mongorecur.Options{}); err == nil {
		t.Error("New(nil) succeeded")
	}
	b, _ := breaker.New(breaker.Config{})
	if _, err := mongorecur.New(mc, mongorecur.Options{Breaker: b, NoBreaker: true}); err == nil {
		t.Error("New with Breaker and NoBreaker succeeded")
	}

	db, err := mongorecur.New(mc, mongorecur.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if db.Mongo() != mc {
		t.Error("Mongo() is not the client given")
	}
	if db.Breaker() == nil || db.Breaker().Name() != mongorecur.DefaultBreakerName {
		t.Errorf("the default breaker: %v", db.Breaker())
	}

	off, err := mongorecur.New(mc, mongorecur.Options{NoBreaker: true})
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

// TestPanicCountsNothing: a panicking operation gives a half-open
// breaker's probe slot back, and the panic goes on.
func TestPanicCountsNothing(t *testing.T) {
	b, _ := breaker.New(breaker.Config{ConsecutiveFailures: 1})
	db, _ := mongorecur.New(&mongo.Client{}, mongorecur.Options{Breaker: b})
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
