package mongorecur_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/mongorecur"
	"github.com/recur-go/recur/mongorecur/internal/mongotest"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testCtx is a context that bounds one test.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// sent counts the commands the driver started: each one was written to a
// connection to the server. The driver's heartbeats are not commands.
type sent struct{ n atomic.Int64 }

func (s *sent) monitor() *event.CommandMonitor {
	return &event.CommandMonitor{Started: func(context.Context, *event.CommandStartedEvent) { s.n.Add(1) }}
}

// connect returns a driver client on s with the URI options given,
// disconnected when t ends. edit, if not nil, changes its options first.
func connect(t *testing.T, s *mongotest.Server, uriOpts string, edit func(*options.ClientOptions)) *mongo.Client {
	t.Helper()
	o := options.Client().ApplyURI(s.URI(uriOpts))
	if edit != nil {
		edit(o)
	}
	mc, err := mongo.Connect(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mc.Disconnect(context.Background()) })
	return mc
}

// guarded returns a Client over mc with a breaker from a registry made
// from c, and that breaker.
func guarded(t *testing.T, mc *mongo.Client, c breaker.Config) (*mongorecur.Client, *breaker.Breaker) {
	t.Helper()
	reg, err := breaker.NewRegistry(c, 0)
	if err != nil {
		t.Fatal(err)
	}
	db, err := mongorecur.New(mc, mongorecur.Config{Breaker: reg})
	if err != nil {
		t.Fatal(err)
	}
	return db, db.Breaker()
}
