package natsretry_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/recur-go/recur/parse"

	"github.com/recur-go/recur/natsretry"
)

// Every request is sent again on the policy while nobody listens, marked
// or not: nobody has seen it, so it cannot run twice. Here the first
// request finds nobody in three attempts; the second finds the responder
// that subscribed in between.
func Example() {
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, NoLog: true, NoSigs: true})
	if err != nil {
		log.Fatal(err)
	}
	go srv.Start()
	defer srv.WaitForShutdown()
	defer srv.Shutdown()
	if !srv.ReadyForConnections(5 * time.Second) {
		log.Fatal("server not ready")
	}
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		log.Fatal(err)
	}
	defer nc.Close()

	r, err := natsretry.New(nc, natsretry.Config{Policy: parse.MustParse("spaced(10ms) & times(3)")})
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()

	_, err = r.Request(ctx, "time.now", nil)
	fmt.Println("nobody listening:", err)

	if _, err := nc.Subscribe("time.now", func(m *nats.Msg) { _ = m.Respond([]byte("noon")) }); err != nil {
		log.Fatal(err)
	}
	reply, err := r.Request(ctx, "time.now", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("a responder:", string(reply.Data))
	// Output:
	// nobody listening: retry: gave up after 3 attempts (schedule exhausted): nats: no responders available for request
	// a responder: noon
}
