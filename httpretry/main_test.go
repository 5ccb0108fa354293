package httpretry_test

import (
	"testing"

	"github.com/recur-go/recur/internal/leakcheck"
)

// TestMain fails the run if any test leaves a goroutine behind: a
// connection's read or write loop, a server, a timer's callback.
func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }
