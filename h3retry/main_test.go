package h3retry_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if any test leaves a goroutine behind: a QUIC
// connection's loops, a server, a dial. quic-go's warning about the UDP
// receive buffer, which a test machine's limits set off, is turned off.
func TestMain(m *testing.M) {
	os.Setenv("QUIC_GO_DISABLE_RECEIVE_BUFFER_WARNING", "true")
	goleak.VerifyTestMain(m)
}
