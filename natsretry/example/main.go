// Command example shows natsretry at work on an embedded NATS server: a
// request marked WithRetry is sent again on its schedule while nobody
// listens, until a subscriber appears; a request not marked fails at once.
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
	r, err := natsretry.New(nc, natsretry.Config{
		Policy: "spaced(100ms) & times(5)",
		Retry: natsretry.RetryOptions{OnRetry: func(n int, err error, _ time.Duration, _ string) {
			fmt.Fprintf(w, "client: attempt %d: %s; retrying\n", n, natsretry.Code(err))
			if n == 3 && natsretry.Code(err) == natsretry.CodeNoResponders {
				subscribe <- struct{}{} // a responder starts during the third wait
				<-subscribed
			}
		}},
	})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()

	fmt.Fprintln(w, "-- not marked, nobody listening")
	_, err = r.Request(ctx, "greet", []byte("ann"))
	fmt.Fprintf(w, "client: %v\n", err)

	fmt.Fprintln(w, "-- marked WithRetry, a subscriber arrives during the third wait")
	m, err := r.Request(natsretry.WithRetry(ctx), "greet", []byte("ann"))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "client: %q\n", m.Data)
	return nil
}
