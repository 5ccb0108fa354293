package httpretry_test

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/verdict"
)

// TestObserver: the Transport reports each attempt to its Observer with
// the request's target and the attempt's reason label.
func TestObserver(t *testing.T) {
	srv := newServer(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		switch n {
		case 1:
			status(http.StatusServiceUnavailable)(n, w, r)
		case 2:
			status(http.StatusTooManyRequests)(n, w, r)
		default:
			status(http.StatusOK)(n, w, r)
		}
	})
	type seen struct {
		Kind    retry.EventKind
		Target  string
		Attempt int
		Verdict verdict.Verdict
		Label   string
	}
	var got []seen
	tr, err := httpretry.New(newBase(t), "times(3)")
	if err != nil {
		t.Fatal(err)
	}
	tr.Options.Clock = newVirtual()
	tr.Options.Observer = retry.ObserverFunc(func(_ context.Context, e retry.Event) {
		got = append(got, seen{e.Kind, e.Target, e.Attempt, e.Verdict, e.Label})
	})
	resp, err := (&http.Client{Transport: tr}).Get(srv.URL + "/x")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	target := srv.URL // scheme://host:port
	want := []seen{
		{retry.Attempted, target, 1, verdict.Transient, "http-503"},
		{retry.Retrying, target, 1, 0, "http-503"},
		{retry.Attempted, target, 2, verdict.Retryable, "http-429"},
		{retry.Retrying, target, 2, 0, "http-429"},
		{retry.Attempted, target, 3, verdict.Success, ""},
		{retry.Recovered, target, 3, 0, "http-429"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}
