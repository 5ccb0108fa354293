package mongotest_test

import (
	"context"
	"testing"
	"time"

	"github.com/recur-go/recur/mongorecur/internal/mongotest"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestStopRestart checks the harness itself: a server that answers, that
// refuses once stopped, and answers again after Restart with its data.
func TestStopRestart(t *testing.T) {
	s := mongotest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := mongo.Connect(options.Client().ApplyURI(s.URI("serverSelectionTimeoutMS=1000")))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Disconnect(context.Background())
	coll := c.Database("harness").Collection("stop")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatalf("insert on a running server: %v", err)
	}
	s.Stop()
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Err(); err == nil {
		t.Fatal("find on a stopped server succeeded")
	} else {
		t.Logf("stopped: %v", err)
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Err(); err != nil {
		t.Fatalf("find after Restart: %v", err)
	}
}
