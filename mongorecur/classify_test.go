package mongorecur_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/mongorecur"
	"github.com/recur-go/recur/verdict"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"
)

// TestClassifyTable checks every row of Classify's table with errors of
// the driver's own types, made by hand where a server cannot be made to
// send them (FerretDB has no replica set to step down), and wrapped once
// more, as an application would.
func TestClassifyTable(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	for _, c := range []struct {
		name string
		err  error
		v    verdict.Verdict
		code string
	}{
		{"nil", nil, verdict.Success, ""},
		{"no documents", mongo.ErrNoDocuments, verdict.Success, "no_documents"},
		{"open breaker", &breaker.OpenError{Name: "mongodb", State: breaker.Open}, verdict.Neutral, "circuit_open"},
		{"canceled", context.Canceled, verdict.Neutral, "canceled"},
		{"selection canceled", topology.ServerSelectionError{Wrapped: context.Canceled}, verdict.Neutral, "canceled"},
		{"pool timeout", topology.WaitQueueTimeoutError{Wrapped: context.DeadlineExceeded}, verdict.Neutral, "pool_timeout"},
		{"selection timeout", topology.ServerSelectionError{Wrapped: context.DeadlineExceeded}, verdict.Transient, "server_selection"},
		{"selection", topology.ServerSelectionError{Wrapped: errors.New("server selection timeout")}, verdict.Transient, "server_selection"},
		{"disconnected", mongo.ErrClientDisconnected, verdict.Neutral, "client_disconnected"},
		{"not writable primary", mongo.CommandError{Code: 10107, Name: "NotWritablePrimary"}, verdict.Transient, "not_primary"},
		{"not primary no secondary ok", mongo.CommandError{Code: 13435}, verdict.Transient, "not_primary"},
		{"legacy not primary", mongo.CommandError{Code: 10058}, verdict.Transient, "not_primary"},
		{"interrupted at shutdown", mongo.CommandError{Code: 11600}, verdict.Transient, "node_recovering"},
		{"repl state change", mongo.CommandError{Code: 11602}, verdict.Transient, "node_recovering"},
		{"not primary or secondary", mongo.CommandError{Code: 13436}, verdict.Transient, "node_recovering"},
		{"stepped down", mongo.CommandError{Code: 189}, verdict.Transient, "node_recovering"},
		{"shutdown in progress", mongo.CommandError{Code: 91}, verdict.Transient, "node_recovering"},
		{"write concern: shutdown", mongo.WriteException{WriteConcernError: &mongo.WriteConcernError{Code: 91}}, verdict.Transient, "node_recovering"},
		{"bulk write concern: not primary", mongo.BulkWriteException{WriteConcernError: &mongo.WriteConcernError{Code: 10107}}, verdict.Transient, "not_primary"},
		{"host unreachable", mongo.CommandError{Code: 6}, verdict.Transient, "unreachable"},
		{"host not found", mongo.CommandError{Code: 7}, verdict.Transient, "unreachable"},
		{"network timeout", mongo.CommandError{Code: 89}, verdict.Transient, "unreachable"},
		{"socket exception", mongo.CommandError{Code: 9001}, verdict.Transient, "unreachable"},
		{"overloaded", mongo.CommandError{Code: 462, Labels: []string{"SystemOverloadedError", "RetryableError"}}, verdict.Transient, "overloaded"},
		{"network label", mongo.CommandError{Labels: []string{"NetworkError"}, Wrapped: io.EOF}, verdict.Transient, "network"},
		{"network label, read timeout", mongo.CommandError{Labels: []string{"NetworkError"}, Wrapped: context.DeadlineExceeded}, verdict.Transient, "network"},
		{"deadline too short", driver.ErrDeadlineWouldBeExceeded, verdict.Neutral, "deadline_too_short"},
		{"max time expired", mongo.CommandError{Code: 50, Name: "MaxTimeMSExpired"}, verdict.Neutral, "max_time_expired"},
		{"deadline", context.DeadlineExceeded, verdict.Transient, "timeout"},
		{"connection refused", refused, verdict.Transient, "network"},
		{"eof", io.EOF, verdict.Transient, "network"},
		{"unexpected eof", io.ErrUnexpectedEOF, verdict.Transient, "network"},
		{"closed", net.ErrClosed, verdict.Transient, "network"},
		{"duplicate key", mongo.WriteException{WriteErrors: []mongo.WriteError{{Code: 11000, Message: "E11000 duplicate key error"}}}, verdict.Neutral, "duplicate_key"},
		{"duplicate key on update", mongo.CommandError{Code: 11001}, verdict.Neutral, "duplicate_key"},
		{"bulk duplicate key", mongo.BulkWriteException{WriteErrors: []mongo.BulkWriteError{{WriteError: mongo.WriteError{Code: 11000}}}}, verdict.Neutral, "duplicate_key"},
		{"bad query", mongo.CommandError{Code: 2, Name: "BadValue"}, verdict.Neutral, "server_error"},
		{"validation", mongo.WriteException{WriteErrors: []mongo.WriteError{{Code: 121}}}, verdict.Neutral, "server_error"},
		{"nil document", mongo.ErrNilDocument, verdict.Neutral, "error"},
		{"own error", errors.New("decode: wrong type"), verdict.Neutral, "error"},
	} {
		for _, err := range []error{c.err, wrap(c.err)} {
			if v, code := mongorecur.Classify(err), mongorecur.Code(err); v != c.v || code != c.code {
				t.Errorf("%s: Classify(%v) = %v, %q; want %v, %q", c.name, err, v, code, c.v, c.code)
			}
		}
	}
}

func wrap(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("load user: %w", err)
}

// TestCallerDeadline checks Do's one departure from Classify: an error
// while the caller's context is done counts nothing, except a server
// selection error, which counts against the server however short the
// caller's deadline was.
func TestCallerDeadline(t *testing.T) {
	for _, c := range []struct {
		err    error
		failed bool
	}{
		{topology.ServerSelectionError{Wrapped: context.DeadlineExceeded}, true},
		{mongo.CommandError{Labels: []string{"NetworkError"}, Wrapped: context.DeadlineExceeded}, false},
		{context.DeadlineExceeded, false},
		{mongo.CommandError{Code: 91}, false},
	} {
		db, err := mongorecur.New(&mongo.Client{}, mongorecur.Config{})
		if err != nil {
			t.Fatal(err)
		}
		b := db.Breaker()
		ctx, cancel := context.WithCancel(context.Background())
		want := wrap(c.err) // a pointer: comparable
		got := db.Do(ctx, func(context.Context) error {
			cancel() // the caller's context ends during the call
			return want
		})
		if got != want {
			t.Fatalf("Do returned %v, want %v unchanged", got, want)
		}
		if n := b.Stats().Failures; (n == 1) != c.failed {
			t.Errorf("%v while the caller's context ended: %d failures counted, want failed=%v", c.err, n, c.failed)
		}
	}
}
