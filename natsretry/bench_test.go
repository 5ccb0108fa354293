package natsretry_test

import (
	"context"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/recur-go/recur/natsretry"
)

// BenchmarkRequest is a request answered by a subscriber on an embedded
// server: plain nats.go, and through a Requester unmarked and marked
// WithIdempotent. Run it 10 times in a shell loop, so that they alternate, and
// compare with benchstat -col /lib (see docs/benchmarks.md).
func BenchmarkRequest(b *testing.B) {
	nc := startServer(b)
	if _, err := nc.Subscribe("svc.echo", func(m *nats.Msg) { _ = m.Respond(m.Data) }); err != nil {
		b.Fatal(err)
	}
	r, err := natsretry.New(nc, natsretry.Config{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	data := []byte("ping")
	for _, bc := range []struct {
		name string
		req  func(context.Context, string, []byte) (*nats.Msg, error)
		ctx  context.Context
	}{
		{"lib=nats.go", nc.RequestWithContext, ctx},
		{"lib=natsretry", r.Request, ctx},
		{"lib=natsretry-marked", r.Request, natsretry.WithIdempotent(ctx)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.req(bc.ctx, "svc.echo", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
