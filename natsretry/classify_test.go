package natsretry_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats.go"
	"github.com/recur-go/recur/verdict"

	"github.com/recur-go/recur/natsretry"
)

// TestClassify: the rule table, wrapped errors included.
func TestClassify(t *testing.T) {
	type row struct {
		Code    string
		Verdict verdict.Verdict
	}
	for _, tc := range []struct {
		err  error
		want row
	}{
		{nil, row{"ok", verdict.Success}},
		{nats.ErrNoResponders, row{"no-responders", verdict.Retryable}},
		{fmt.Errorf("svc: %w", nats.ErrNoResponders), row{"no-responders", verdict.Retryable}},
		{nats.ErrTimeout, row{"timeout", verdict.Transient}},
		{context.DeadlineExceeded, row{"timeout", verdict.Transient}},
		{context.Canceled, row{"canceled", verdict.Neutral}},
		{nats.ErrConnectionClosed, row{"other", verdict.Failure}},
		{errors.New("boom"), row{"other", verdict.Failure}},
	} {
		got := row{natsretry.Code(tc.err), natsretry.Classify(tc.err)}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%v: (-want +got)\n%s", tc.err, diff)
		}
	}
}

// TestRequestMsg: a message with headers is sent again until a subscriber
// appears, headers and all; a nil message is an error.
func TestRequestMsg(t *testing.T) {
	nc := startServer(t)
	r, codes := requester(t, nc, "spaced(20ms) & times(3)", 0)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := r.RequestMsg(ctx, nil); err == nil {
		t.Error("RequestMsg accepted a nil message")
	}
	msg := nats.NewMsg("svc.hdr")
	msg.Header.Set("Tenant", "a")
	_, err := r.RequestMsg(ctx, msg)
	if !errors.Is(err, nats.ErrNoResponders) || len(*codes) != 2 {
		t.Fatalf("got %v after %d retries, want ErrNoResponders after 2", err, len(*codes))
	}
	if _, err := nc.Subscribe("svc.hdr", func(m *nats.Msg) { _ = m.Respond([]byte(m.Header.Get("Tenant"))) }); err != nil {
		t.Fatal(err)
	}
	_ = nc.Flush()
	m, err := r.RequestMsg(ctx, msg)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("a", string(m.Data)); diff != "" {
		t.Errorf("reply (-want +got)\n%s", diff)
	}
}
