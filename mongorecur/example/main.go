// Command example counts visits in MongoDB through a mongorecur.Client:
// -n upserts, one every -every, each printed with its outcome and the
// breaker's state, then the count read back and the breaker's counters.
// Stop the server while it runs to watch the breaker open and refuse
// calls at once; start it again to watch a probe close it.
//
//	go run ./example -uri mongodb://127.0.0.1:27017 -n 60 -every 1s
//
// It writes to the collection recur_example.visits, and drops it when
// done.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/mongorecur"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func main() {
	uri := flag.String("uri", os.Getenv("MONGODB_URI"), "MongoDB connection string (default $MONGODB_URI)")
	n := flag.Int("n", 5, "how many visits to count")
	every := flag.Duration("every", 500*time.Millisecond, "the pause between visits")
	flag.Parse()
	if *uri == "" {
		fmt.Fprintln(os.Stderr, "usage: example -uri mongodb://127.0.0.1:27017 [-n 60 -every 1s]")
		os.Exit(2)
	}
	if err := run(context.Background(), *uri, *n, *every, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "example:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, uri string, n int, every time.Duration, out io.Writer) error {
	// A down server fails a call after the server selection timeout
	// (30 s unless set); the breaker then fails the next ones at once.
	mc, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(2 * time.Second))
	if err != nil {
		return err
	}
	defer mc.Disconnect(context.WithoutCancel(ctx))
	db, err := mongorecur.New(mc, mongorecur.Config{}) // breaker on; retries left to the driver
	if err != nil {
		return err
	}
	visits := mc.Database("recur_example").Collection("visits")
	defer visits.Drop(context.WithoutCancel(ctx))

	for i := range n {
		if i > 0 {
			time.Sleep(every)
		}
		err := db.Do(ctx, func(ctx context.Context) error {
			_, err := visits.UpdateOne(ctx,
				bson.D{{Key: "_id", Value: "/"}},
				bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}},
				options.UpdateOne().SetUpsert(true))
			return err
		})
		outcome := "ok"
		switch {
		case errors.Is(err, breaker.ErrOpen):
			outcome = "refused: " + err.Error()
		case err != nil:
			outcome = fmt.Sprintf("%s (%v): %v", mongorecur.Code(err), mongorecur.Classify(err), err)
		}
		fmt.Fprintf(out, "visit %d: %s; breaker %s\n", i+1, outcome, db.Breaker().State())
	}

	count, err := mongorecur.Call(ctx, db, func(ctx context.Context) (int, error) {
		var doc struct {
			N int `bson:"n"`
		}
		err := visits.FindOne(ctx, bson.D{{Key: "_id", Value: "/"}}).Decode(&doc)
		return doc.N, err
	})
	if err != nil {
		return fmt.Errorf("read: %w (code %s)", err, mongorecur.Code(err))
	}
	st := db.Breaker().Stats()
	fmt.Fprintf(out, "visits of /: %d\nbreaker: %s, %d successes, %d failures, %d refused\n",
		count, st.State, st.Successes, st.Failures, st.Rejected)
	return nil
}
