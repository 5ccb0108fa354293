package mongorecur_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/mongorecur"
	"github.com/recur-go/recur/mongorecur/internal/mongotest"
	"github.com/recur-go/recur/schedule"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// constant is an open duration that does not grow.
func constant(d time.Duration) schedule.Schedule {
	return schedule.Exponential{Base: d, FactorPct: 100, Cap: d}
}

// TestOutageOpensAndRefuses stops the server under a client and checks
// that the breaker opens after its 5 failures in a row and then refuses
// calls at once: the operation is not run and no command is sent.
func TestOutageOpensAndRefuses(t *testing.T) {
	s := mongotest.Start(t)
	ctx := testCtx(t)
	var cmds sent
	mc := connect(t, s, "serverSelectionTimeoutMS=500&heartbeatFrequencyMS=500", func(o *options.ClientOptions) {
		o.SetMonitor(cmds.monitor())
	})
	db, b := guarded(t, mc, breaker.Config{OpenFor: constant(time.Hour)})
	coll := mc.Database("outage").Collection("docs")
	var ran atomic.Int64
	insert := func(ctx context.Context) error {
		ran.Add(1)
		_, err := coll.InsertOne(ctx, bson.D{{Key: "v", Value: 1}})
		return err
	}
	if err := db.Do(ctx, insert); err != nil {
		t.Fatalf("insert on a live server: %v", err)
	}

	s.Stop()
	stopped := time.Now()
	var failures []string
	for b.State() == breaker.Closed {
		if len(failures) == 20 {
			t.Fatalf("the breaker is still closed after 20 failed calls: %v", failures)
		}
		err := db.Do(ctx, insert)
		if err == nil {
			t.Fatal("insert on a stopped server succeeded")
		}
		if mongorecur.Classify(err).Failed() != true {
			t.Fatalf("an error of the outage counts nothing: %s: %v", mongorecur.Code(err), err)
		}
		failures = append(failures, mongorecur.Code(err))
	}
	toOpen := time.Since(stopped)
	t.Logf("open after %d failed calls in %v: %v", len(failures), toOpen.Round(time.Millisecond), failures)
	if len(failures) != breaker.DefaultConsecutiveFailures {
		t.Errorf("opened after %d failures, want %d", len(failures), breaker.DefaultConsecutiveFailures)
	}

	ranBefore, cmdsBefore := ran.Load(), cmds.n.Load()
	const refused = 1000
	start := time.Now()
	for range refused {
		err := db.Do(ctx, insert)
		var oe *breaker.OpenError
		if !errors.Is(err, breaker.ErrOpen) || !errors.As(err, &oe) || mongorecur.Code(err) != "circuit_open" {
			t.Fatalf("a call through the open breaker: %v", err)
		}
	}
	took := time.Since(start)
	t.Logf("%d calls refused in %v (%v each)", refused, took.Round(time.Microsecond), (took / refused).Round(time.Nanosecond))
	if n := ran.Load() - ranBefore; n != 0 {
		t.Errorf("the open breaker ran the operation %d times", n)
	}
	if n := cmds.n.Load() - cmdsBefore; n != 0 {
		t.Errorf("the open breaker let %d commands out", n)
	}
	if took > time.Second {
		t.Errorf("refusing %d calls took %v: they waited for something", refused, took)
	}
	st := b.Stats()
	t.Logf("stats: %+v", st)
	if st.Rejected != refused || st.Opened != 1 || st.Failures != uint64(len(failures)) {
		t.Errorf("stats %+v: want %d rejected, 1 opening, %d failures", st, refused, len(failures))
	}
}

// TestRecovery stops the server until the breaker opens, starts it again,
// and checks that the first call after the open duration goes through as
// the probe and closes the breaker.
func TestRecovery(t *testing.T) {
	s := mongotest.Start(t)
	ctx := testCtx(t)
	mc := connect(t, s, "serverSelectionTimeoutMS=2000&heartbeatFrequencyMS=500", nil)
	var mu sync.Mutex
	var moves []string
	const openFor = 500 * time.Millisecond
	db, b := guarded(t, mc, breaker.Config{
		ConsecutiveFailures: 3,
		OpenFor:             constant(openFor),
		OnStateChange: func(_ string, from, to breaker.State) {
			mu.Lock()
			moves = append(moves, from.String()+"→"+to.String())
			mu.Unlock()
		},
	})
	coll := mc.Database("recovery").Collection("docs")
	find := func(ctx context.Context) error {
		err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Err()
		return err
	}
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}

	s.Stop()
	for i := 0; b.State() == breaker.Closed; i++ {
		if i == 10 {
			t.Fatal("the breaker is still closed after 10 calls to a stopped server")
		}
		if err := db.Do(ctx, find); err == nil {
			t.Fatal("find on a stopped server succeeded")
		}
	}
	opened := time.Now()
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	// Still open: refused at once although the server is back.
	if err := db.Do(ctx, find); !errors.Is(err, breaker.ErrOpen) {
		t.Fatalf("right after the restart: %v, want the open breaker's refusal", err)
	}
	time.Sleep(time.Until(opened.Add(openFor + 50*time.Millisecond)))
	start := time.Now()
	if err := db.Do(ctx, find); err != nil {
		t.Fatalf("the probe after the restart: %s: %v", mongorecur.Code(err), err)
	}
	t.Logf("probe succeeded in %v", time.Since(start).Round(time.Millisecond))
	if got := b.State(); got != breaker.Closed {
		t.Fatalf("after a successful probe the breaker is %v", got)
	}
	for range 10 {
		if err := db.Do(ctx, find); err != nil {
			t.Fatalf("after recovery: %v", err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("transitions: %v", moves)
	want := []string{"closed→open", "open→half-open", "half-open→closed"}
	if len(moves) != len(want) {
		t.Fatalf("transitions %v, want %v", moves, want)
	}
	for i := range want {
		if moves[i] != want[i] {
			t.Fatalf("transitions %v, want %v", moves, want)
		}
	}
}
