package repeat_test

import (
	"testing"

	"github.com/recur-go/recur/internal/leakcheck"
)

func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }
