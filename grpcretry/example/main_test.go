package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestRun(t *testing.T) {
	defer goleak.VerifyNone(t)
	var out strings.Builder
	if err := run(&out); err != nil {
		t.Fatal(err)
	}
	want := `-- call: the server will fail twice
server: attempt 1, grpc-previous-rpc-attempts []
client: attempt 1 failed with Unavailable; retrying
server: attempt 2, grpc-previous-rpc-attempts ["1"]
client: attempt 2 failed with Unavailable; retrying
server: attempt 3, grpc-previous-rpc-attempts ["2"]
client: got "hello after 3 attempts"
-- call: the server will push back
server: attempt 1, grpc-previous-rpc-attempts []
client: retry: gave up after 1 attempt (retry refused by pushback): rpc error: code = Unavailable desc = overloaded (status Unavailable)
-- call: the server will fail always
server: attempt 1, grpc-previous-rpc-attempts []
client: attempt 1 failed with Unavailable; retrying
server: attempt 2, grpc-previous-rpc-attempts ["1"]
client: attempt 2 failed with Unavailable; retrying
client: retry: gave up after 2 attempts (circuit open: breaker 127.0.0.1:PORT: circuit open, an opening of 5s): rpc error: code = Unavailable desc = warming up (status Unavailable)
-- call: the server will fail always
client: rpc error: code = Unavailable desc = circuit open (status Unavailable)
`
	got := out.String()
	if i := strings.Index(got, "breaker 127.0.0.1:"); i >= 0 {
		j := i + len("breaker 127.0.0.1:")
		k := j + strings.IndexByte(got[j:], ':')
		got = got[:j] + "PORT" + got[k:]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}
