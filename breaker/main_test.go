package breaker_test

import (
	"testing"
	"time"

	"github.com/recur-go/recur/internal/leakcheck"
)

func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
