package mongorecur_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/mongorecur"
	"github.com/recur-go/recur/mongorecur/internal/mongotest"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// strict is a breaker that opens at the first counted failure.
var strict = breaker.Config{ConsecutiveFailures: 1, FailureRate: 1, MinCalls: 1}

// TestDuplicateKeyCountsNothing inserts the same _id many times: each
// insert is E11000 from a live server, which counts nothing, so even a
// breaker that opens at the first failure stays closed.
func TestDuplicateKeyCountsNothing(t *testing.T) {
	s := mongotest.Start(t)
	ctx := testCtx(t)
	mc := connect(t, s, "", nil)
	db, b := guarded(t, mc, strict)
	coll := mc.Database("answers").Collection("dup")
	doc := bson.D{{Key: "_id", Value: 42}}
	if err := db.Do(ctx, func(ctx context.Context) error {
		_, err := coll.InsertOne(ctx, doc)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	const n = 200
	for i := range n {
		err := db.Do(ctx, func(ctx context.Context) error {
			_, err := coll.InsertOne(ctx, doc)
			return err
		})
		if !mongo.IsDuplicateKeyError(err) || mongorecur.Code(err) != "duplicate_key" {
			t.Fatalf("insert %d of a duplicate _id: %s: %v", i, mongorecur.Code(err), err)
		}
		if i == 0 {
			t.Logf("the server's answer: %v", err)
		}
	}
	st := b.Stats()
	t.Logf("after %d duplicate keys: %+v", n, st)
	if st.State != breaker.Closed || st.Failures != 0 || st.Opened != 0 {
		t.Fatalf("duplicate keys moved the breaker: %+v", st)
	}
	// The one success counted, and the breaker still lets calls through.
	n2, err := mongorecur.Call(ctx, db, func(ctx context.Context) (int64, error) {
		return coll.CountDocuments(ctx, bson.D{})
	})
	if err != nil || n2 != 1 {
		t.Fatalf("count = %d, %v; want 1, nil", n2, err)
	}
}

// TestNoDocumentsIsSuccess: a find that matches nothing is an answer.
func TestNoDocumentsIsSuccess(t *testing.T) {
	s := mongotest.Start(t)
	ctx := testCtx(t)
	mc := connect(t, s, "", nil)
	db, b := guarded(t, mc, strict)
	coll := mc.Database("answers").Collection("empty")
	for range 10 {
		err := db.Do(ctx, func(ctx context.Context) error {
			return coll.FindOne(ctx, bson.D{{Key: "_id", Value: "missing"}}).Err()
		})
		if !errors.Is(err, mongo.ErrNoDocuments) {
			t.Fatalf("find of a missing document: %v", err)
		}
	}
	if st := b.Stats(); st.Successes != 10 || st.Failures != 0 {
		t.Fatalf("10 finds of a missing document: %+v, want 10 successes", st)
	}
}

// TestDoneContextNeverReachesServer: a call whose context is already
// cancelled or past its deadline returns the context's error without
// running the operation, sending a command or asking the breaker.
func TestDoneContextNeverReachesServer(t *testing.T) {
	s := mongotest.Start(t)
	var cmds sent
	mc := connect(t, s, "", func(o *options.ClientOptions) { o.SetMonitor(cmds.monitor()) })
	db, b := guarded(t, mc, strict)
	coll := mc.Database("answers").Collection("done")

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()
	var ran atomic.Int64
	insert := func(ctx context.Context) error {
		ran.Add(1)
		_, err := coll.InsertOne(ctx, bson.D{{Key: "v", Value: 1}})
		return err
	}
	for _, c := range []struct {
		ctx  context.Context
		want error
	}{{cancelled, context.Canceled}, {expired, context.DeadlineExceeded}} {
		for range 100 {
			if err := db.Do(c.ctx, insert); err != c.want {
				t.Fatalf("Do with a done context = %v, want %v", err, c.want)
			}
			if _, err := mongorecur.Call(c.ctx, db, func(ctx context.Context) (int64, error) {
				ran.Add(1)
				return coll.CountDocuments(ctx, bson.D{})
			}); err != c.want {
				t.Fatalf("Call with a done context = %v, want %v", err, c.want)
			}
		}
	}
	if n := ran.Load(); n != 0 {
		t.Errorf("the operation ran %d times", n)
	}
	if n := cmds.n.Load(); n != 0 {
		t.Errorf("%d commands reached the server", n)
	}
	if st := b.Stats(); st != (breaker.Stats{}) {
		t.Errorf("the breaker counted something: %+v", st)
	}
	// Nothing was inserted.
	n, err := coll.CountDocuments(context.Background(), bson.D{})
	if err != nil || n != 0 {
		t.Fatalf("count = %d, %v; want 0, nil", n, err)
	}
}

// holder makes the driver hold a connection: a find on the collection
// "hold" blocks in the command monitor, with its connection checked out,
// until release.
type holder struct {
	held    chan struct{} // closed when the find is blocked
	release chan struct{}
}

func newHolder() *holder { return &holder{held: make(chan struct{}), release: make(chan struct{})} }

func (h *holder) monitor() *event.CommandMonitor {
	var once atomic.Bool
	return &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if e.CommandName != "find" {
			return
		}
		if c, ok := e.Command.Lookup("find").StringValueOK(); !ok || c != "hold" {
			return
		}
		if once.CompareAndSwap(false, true) {
			close(h.held)
		}
		<-h.release
	}}
}

// TestPoolTimeoutAndCancelCountNothing: with the pool's one connection
// held, a call whose deadline passes waiting for a connection gets
// WaitQueueTimeoutError, local overload; and the caller's cancellation of
// the call that held it counts nothing either. The breaker opens at the
// first counted failure, and stays closed.
func TestPoolTimeoutAndCancelCountNothing(t *testing.T) {
	s := mongotest.Start(t)
	ctx := testCtx(t)
	h := newHolder()
	mc := connect(t, s, "maxPoolSize=1", func(o *options.ClientOptions) { o.SetMonitor(h.monitor()) })
	db, b := guarded(t, mc, strict)
	dbh := mc.Database("answers")
	if _, err := dbh.Collection("hold").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}

	holdCtx, cancelHold := context.WithCancel(ctx)
	held := make(chan error, 1)
	go func() {
		held <- db.Do(holdCtx, func(ctx context.Context) error {
			return dbh.Collection("hold").FindOne(ctx, bson.D{}).Err()
		})
	}()
	select {
	case <-h.held:
	case <-time.After(10 * time.Second):
		close(h.release)
		t.Fatal("the holding find never started")
	}

	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	err := db.Do(short, func(ctx context.Context) error {
		_, err := dbh.Collection("other").InsertOne(ctx, bson.D{{Key: "v", Value: 1}})
		return err
	})
	t.Logf("waiting for the held connection: %s: %v", mongorecur.Code(err), err)
	if mongorecur.Code(err) != "pool_timeout" {
		t.Errorf("a call that found no free connection: %s: %v, want pool_timeout", mongorecur.Code(err), err)
	}

	cancelHold()
	close(h.release)
	err = <-held
	t.Logf("the cancelled holder: %s: %v", mongorecur.Code(err), err)
	if !errors.Is(err, context.Canceled) || mongorecur.Code(err) != "canceled" {
		t.Errorf("the cancelled call: %s: %v, want canceled", mongorecur.Code(err), err)
	}
	if st := b.Stats(); st.State != breaker.Closed || st.Failures != 0 {
		t.Fatalf("a pool timeout or a cancellation moved the breaker: %+v", st)
	}
	// The connection is free again.
	if err := db.Do(ctx, func(ctx context.Context) error {
		_, err := dbh.Collection("other").InsertOne(ctx, bson.D{{Key: "v", Value: 2}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
}
