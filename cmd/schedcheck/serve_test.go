package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
)

// fakeServer makes serve's start of the server record its arguments and
// return code, without building or running it.
func fakeServer(t *testing.T, code int) *[]string {
	t.Helper()
	real := startServer
	t.Cleanup(func() { startServer = real })
	var got []string
	startServer = func(c *cli, args []string) int {
		got = args
		return code
	}
	return &got
}

// TestServe: serve starts the server with the address, and exits with its
// status. playground/server's tests serve the page; make browser-test
// runs the real thing.
func TestServe(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"serve"}, []string{"--addr", "127.0.0.1:8080"}},
		{[]string{"serve", "--addr", "127.0.0.1:0"}, []string{"--addr", "127.0.0.1:0"}},
	} {
		got := fakeServer(t, 7)
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), c.args, nil, &stdout, &stderr); code != 7 || !slices.Equal(*got, c.want) {
			t.Errorf("%q: exit %d, server started with %q; want 7 and %q", c.args, code, *got, c.want)
		}
	}
}

func TestServeUsage(t *testing.T) {
	got := fakeServer(t, exitOK)
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"serve", "extra"}, nil, &stdout, &stderr); code != exitUsage || *got != nil || !strings.Contains(stderr.String(), "serve takes no arguments") {
		t.Errorf("serve extra: exit %d, server started with %q, stderr %q; want %d and no server", code, *got, stderr.String(), exitUsage)
	}
}
