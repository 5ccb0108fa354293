// Package mongorecur puts a circuit breaker in front of the MongoDB Go
// driver (go.mongodb.org/mongo-driver/v2), on by default, and leaves the
// retries to the driver.
//
// The driver already retries: its retryable reads and retryable writes
// (on by default) run an operation a second time after a network error or
// a "not primary"/"node is recovering" error, once, on a newly selected
// server (as often as its Timeout allows when the client has one). What it
// does not have is a breaker: while a deployment is down every operation
// waits for server selection (30 s by default) before it fails. A Client
// adds the breaker, not a second retry layer: after 5 failures in a row
// (the breaker's default rules) it fails calls at once with
// breaker.ErrOpen, until a probe finds the server back.
//
// Config has the fields of the shape every recur adapter shares
// (docs/adapters.md) that a breaker needs, Breaker (a breaker.Registry)
// and NoBreaker; the retries are the driver's, so there is no Policy,
// Budget or Options.
//
// It is a module of its own, github.com/recur-go/recur/mongorecur, so that
// the driver never enters the main module's dependencies.
//
// # Use
//
//	mc, err := mongo.Connect(options.Client().ApplyURI(uri))
//	if err != nil {
//		return err
//	}
//	db, err := mongorecur.New(mc, mongorecur.Config{}) // a breaker of its own
//	if err != nil {
//		return err
//	}
//	users := mc.Database("app").Collection("users")
//	err = db.Do(ctx, func(ctx context.Context) error {
//		_, err := users.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "name", Value: name}})
//		return err
//	})
//	n, err := mongorecur.Call(ctx, db, func(ctx context.Context) (int64, error) {
//		return users.CountDocuments(ctx, bson.D{})
//	})
//
// The driver has no per-operation middleware that could refuse a command
// (its event monitors observe; they cannot stop one), and a server
// selection timeout, the commonest error of an outage, happens before any
// command exists to observe. So the breaker sits where the operation is
// called: Do and Call ask it first, run the operation, and record
// Classify's verdict on its error.
//
// # What counts
//
// Network errors, server selection errors and "not primary"/"node is
// recovering" errors count against the breaker. Any other answer of a live
// server (a duplicate key, a bad query) counts nothing, and so does a
// pool that had no free connection in time (local overload, not a down
// server) and the caller's own cancellation. See Classify for the table,
// and Code for the labels.
package mongorecur
