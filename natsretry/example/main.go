// Command example shows natsretry at work on an embedded NATS server: a
// request is sent again on its policy while nobody listens, until a
// subscriber appears, marked or not; after a timeout only a request
// marked WithIdempotent is sent again.
//
//	cd natsretry && go run ./example
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/recur-go/recur/natsretry"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/retry"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(w io.Writer) error {
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, NoLog: true, NoSigs: true})
	if err != nil {
		return err
	}
	go srv.Start()
	defer srv.WaitForShutdown()
	defer srv.Shutdown()
	if !srv.ReadyForConnections(5 * time.Second) {
		return errors.New("nats-server not ready within 5s")
	}
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		return err
	}
	defer nc.Close()

	subscribe, subscribed := make(chan struct{}, 1), make(chan struct{})
	defer func() { close(subscribe); <-subscribed }()
	go func() {
		<-subscribe
		if _, err := nc.Subscribe("greet", func(m *nats.Msg) { _ = m.Respond(append([]byte("hello "), m.Data...)) }); err == nil {
			_ = nc.Flush()
		}
		close(subscribed)
	}()

	// lookup answers a name only the second time it sees it: the first
	// request for it times out.
	seen := map[string]bool{}
	if _, err := nc.Subscribe("lookup", func(m *nats.Msg) {
		if name := string(m.Data); seen[name] {
			_ = m.Respond(append([]byte("found "), m.Data...))
		} else {
			seen[name] = true
		}
	}); err != nil {
		return err
	}
	if err := nc.Flush(); err != nil {
		return err
	}

	policy, err := parse.Parse("spaced(100ms) & times(5)")
	if err != nil {
		return err
	}
	r, err := natsretry.New(nc, natsretry.Config{
		Policy: policy,
		Options: retry.Options{
			AttemptTimeout: 200 * time.Millisecond,
			Observer: retry.ObserverFunc(func(_ context.Context, e retry.Event) {
				if e.Kind != retry.Retrying {
					return
				}
				fmt.Fprintf(w, "client: attempt %d: %s; retrying\n", e.Attempt, natsretry.Code(e.Err))
				if e.Attempt == 3 && natsretry.Code(e.Err) == natsretry.CodeNoResponders {
					subscribe <- struct{}{} // a responder starts during the third wait
					<-subscribed
				}
			}),
		},
	})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()

	fmt.Fprintln(w, "-- nobody listening, not marked; a subscriber arrives during the third wait")
	m, err := r.Request(ctx, "greet", []byte("ann"))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "client: %q\n", m.Data)

	fmt.Fprintln(w, "-- the first request times out, not marked: sent once")
	_, err = r.Request(ctx, "lookup", []byte("ann"))
	fmt.Fprintf(w, "client: %s\n", natsretry.Code(err))

	fmt.Fprintln(w, "-- the first request times out, marked WithIdempotent: sent again")
	m, err = r.Request(natsretry.WithIdempotent(ctx), "lookup", []byte("bob"))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "client: %q\n", m.Data)
	return nil
}
