package mongorecur

import (
	"context"
	"errors"
	"fmt"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/verdict"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// DefaultBreakerName is the target of every Client's breaker in its
// Config.Breaker registry, and so the breaker's name in its errors and
// logs: a *mongo.Client does not say which hosts it connects to.
const DefaultBreakerName = "mongodb"

// Config configures a Client, in the shape every recur adapter shares
// (docs/adapters.md), with only the fields a breaker needs: the driver
// keeps its own retries, so there is no Policy, Budget or Options. The
// zero value is the default: a circuit breaker of its own with
// breaker.Config's defaults.
type Config struct {
	// Breaker holds the circuit breakers, one per target; the Client's
	// breaker is Breaker.Get(DefaultBreakerName). It guards every call of
	// Do and Call: an open breaker fails a call at once with an error
	// that matches breaker.ErrOpen (Code "circuit_open"), without
	// selecting a server or taking a connection. Nil means a registry of
	// the Client's own made from breaker.Config's defaults: the breaker
	// opens after 5 failures in a row, or half of at least 20 calls in
	// 10 s, and stays open 5 s, doubling to 60 s. Pass a registry to
	// choose its rules (breaker.NewRegistry) or to share the breaker
	// between the Clients of one deployment; Clients of different
	// deployments need registries of their own, since they would share
	// the one target.
	Breaker *breaker.Registry

	// NoBreaker turns the breaker off: Do and Call then only keep a call
	// whose context is done from reaching the server. It is an error
	// together with Breaker.
	NoBreaker bool
}

// Client is a *mongo.Client with a circuit breaker. The driver keeps its
// own retries (retryable reads and writes); the Client adds the breaker,
// which the driver has not: run each operation through Do or Call. It is
// safe for concurrent use.
type Client struct {
	c *mongo.Client
	b *breaker.Breaker
}

var (
	errNilClient  = errors.New("mongorecur: New with a nil *mongo.Client")
	errBothOpts   = errors.New("mongorecur: Config sets both Breaker and NoBreaker")
	errNilOp      = errors.New("mongorecur: Do with a nil operation")
	errNilWrapper = errors.New("mongorecur: Do on a nil *Client")
)

// New returns a Client over c configured by cfg. It fails for a nil c and
// for a Config that sets both Breaker and NoBreaker. Disconnecting c is
// still the caller's job.
func New(c *mongo.Client, cfg Config) (*Client, error) {
	switch {
	case c == nil:
		return nil, errNilClient
	case cfg.Breaker != nil && cfg.NoBreaker:
		return nil, errBothOpts
	}
	if cfg.NoBreaker {
		return &Client{c: c}, nil
	}
	reg := cfg.Breaker
	if reg == nil {
		var err error
		if reg, err = breaker.NewRegistry(breaker.Config{}, 0); err != nil {
			return nil, fmt.Errorf("mongorecur: %w", err)
		}
	}
	return &Client{c: c, b: reg.Get(DefaultBreakerName)}, nil
}

// Mongo returns the driver's client, for what runs without the breaker:
// Disconnect, sessions, change streams.
func (c *Client) Mongo() *mongo.Client { return c.c }

// Breaker returns the Client's breaker, nil with Config.NoBreaker.
func (c *Client) Breaker() *breaker.Breaker { return c.b }

// Do runs op once through the Client's breaker and returns its error
// unchanged. op should run one operation of the driver (InsertOne, a
// Find and the iteration of its cursor, a BulkWrite, ...) on the ctx it
// is given; the driver may retry it once inside, as its retryable reads
// and writes do. Do never retries.
//
//   - A ctx that is already done returns ctx.Err() at once: op is not
//     called and the breaker is not asked, so nothing reaches the server.
//   - An open breaker returns its *breaker.OpenError (errors.Is(err,
//     breaker.ErrOpen)) at once: op is not called.
//   - Otherwise op runs, and the breaker records Classify's verdict on its
//     error: Transient counts against the server, Success for it,
//     Neutral nothing. An error while ctx is done counts nothing (the
//     caller gave up, which says nothing of the server), except a server
//     selection error: no server could be found for as long as the caller
//     waited, which is the outage the breaker is for, however short the
//     caller's deadline. If op panics, the call counts nothing and the
//     panic goes on.
func (c *Client) Do(ctx context.Context, op func(ctx context.Context) error) error {
	if op == nil {
		return errNilOp
	}
	_, err := Call(ctx, c, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, op(ctx)
	})
	return err
}

// Call is Do for an operation with a result: it returns op's result and
// error unchanged, or the zero T with the error of a done ctx or an open
// breaker, under the same rules.
func Call[T any](ctx context.Context, c *Client, op func(ctx context.Context) (T, error)) (v T, err error) {
	switch {
	case c == nil:
		return v, errNilWrapper
	case op == nil:
		return v, errNilOp
	}
	if err := ctx.Err(); err != nil {
		return v, err
	}
	if c.b == nil {
		return op(ctx)
	}
	p, err := c.b.Allow()
	if err != nil {
		return v, err
	}
	rec := verdict.Neutral // what a panicking op leaves recorded
	defer func() { c.b.Record(&p, rec) }()
	v, err = op(ctx)
	rec = judge(ctx, err)
	return v, err
}

// judge is the verdict Do records for err: Classify's, except Neutral for
// an error while ctx is done that is not a server selection error.
func judge(ctx context.Context, err error) verdict.Verdict {
	v, code := classify(err)
	if v != verdict.Success && code != codeSelection && ctx.Err() != nil {
		return verdict.Neutral
	}
	return v
}
