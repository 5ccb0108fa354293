package mongorecur_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/mongorecur"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// A Client with the default breaker, and an insert through it. It needs a
// MongoDB server on localhost, so it has no output to check.
func ExampleNew() {
	ctx := context.Background()
	mc, err := mongo.Connect(options.Client().ApplyURI("mongodb://localhost:27017").
		SetServerSelectionTimeout(5 * time.Second)) // how long a call waits for a down server
	if err != nil {
		log.Fatal(err)
	}
	defer mc.Disconnect(ctx)

	db, err := mongorecur.New(mc, mongorecur.Config{})
	if err != nil {
		log.Fatal(err)
	}
	users := mc.Database("app").Collection("users")
	err = db.Do(ctx, func(ctx context.Context) error {
		_, err := users.InsertOne(ctx, bson.D{{Key: "_id", Value: 42}, {Key: "name", Value: "Ada"}})
		return err
	})
	switch {
	case errors.Is(err, breaker.ErrOpen):
		log.Print("MongoDB is down; not waiting for it") // refused at once
	case mongo.IsDuplicateKeyError(err):
		log.Print("user 42 exists") // counts nothing against the server
	case err != nil:
		log.Print(err)
	}
}

// Call returns the operation's result; a Find runs its cursor inside the
// call, so that an error while reading the batches is judged too.
func ExampleCall() {
	ctx := context.Background()
	mc, err := mongo.Connect(options.Client().ApplyURI("mongodb://localhost:27017"))
	if err != nil {
		log.Fatal(err)
	}
	defer mc.Disconnect(ctx)
	db, err := mongorecur.New(mc, mongorecur.Config{})
	if err != nil {
		log.Fatal(err)
	}
	users := mc.Database("app").Collection("users")

	type user struct {
		ID   int    `bson:"_id"`
		Name string `bson:"name"`
	}
	all, err := mongorecur.Call(ctx, db, func(ctx context.Context) ([]user, error) {
		cur, err := users.Find(ctx, bson.D{})
		if err != nil {
			return nil, err
		}
		var us []user
		err = cur.All(ctx, &us) // closes the cursor
		return us, err
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(all), "users")
}

// Config.Breaker takes a registry of your own, whose breaker for
// DefaultBreakerName is the Client's: here one that opens after 3
// failures in a row and logs its transitions.
func ExampleConfig() {
	breakers, err := breaker.NewRegistry(breaker.Config{
		ConsecutiveFailures: 3,
		OnStateChange: func(name string, from, to breaker.State) {
			log.Printf("breaker %s: %v → %v", name, from, to)
		},
	}, 0)
	if err != nil {
		log.Fatal(err)
	}
	mc, err := mongo.Connect(options.Client().ApplyURI("mongodb://localhost:27017"))
	if err != nil {
		log.Fatal(err)
	}
	defer mc.Disconnect(context.Background())
	db, err := mongorecur.New(mc, mongorecur.Config{Breaker: breakers})
	if err != nil {
		log.Fatal(err)
	}
	_ = db // use db.Do and mongorecur.Call as above
}

// What the breaker makes of some of the driver's errors.
func ExampleClassify() {
	for _, err := range []error{
		nil,
		mongo.ErrNoDocuments,
		mongo.WriteException{WriteErrors: []mongo.WriteError{{Code: 11000, Message: "E11000 duplicate key error"}}},
		mongo.CommandError{Code: 10107, Name: "NotWritablePrimary"},
		mongo.CommandError{Labels: []string{"NetworkError"}},
		context.Canceled,
	} {
		fmt.Printf("%-9v %q\n", mongorecur.Classify(err), mongorecur.Code(err))
	}
	// Output:
	// success   ""
	// success   "no_documents"
	// neutral   "duplicate_key"
	// transient "not_primary"
	// transient "network"
	// neutral   "canceled"
}

// Do refuses a call whose context is already done: the operation does not
// run, and the server is not asked.
func ExampleClient_Do() {
	var mc mongo.Client // a client never connected: this call does not reach it
	db, err := mongorecur.New(&mc, mongorecur.Config{})
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = db.Do(ctx, func(ctx context.Context) error {
		fmt.Println("not printed")
		return nil
	})
	fmt.Println(err)
	// Output:
	// context canceled
}
