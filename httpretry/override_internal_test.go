package httpretry

import (
	"context"
	"testing"

	"github.com/recur-go/recur/schedule"
)

// TestOverridesCompose: WithSchedule, WithoutRetry and WithHedge share one
// context key; each keeps what the others set, and the innermost setting
// of each wins.
func TestOverridesCompose(t *testing.T) {
	s, h := schedule.Times{N: 5}, schedule.Times{N: 2}
	ctx := WithHedge(WithSchedule(context.Background(), s), h)
	if ov := overridesOf(ctx); !ov.hasSched || ov.sched.s != s || !ov.hasHedge || ov.hedge.s != h {
		t.Errorf("WithHedge(WithSchedule) = %+v", ov)
	}
	ctx = WithoutRetry(ctx)
	if ov := overridesOf(ctx); !ov.hasSched || ov.sched.s != nil || ov.hedge.s != h {
		t.Errorf("WithoutRetry over both = %+v", ov)
	}
	ctx = WithHedge(ctx, nil)
	if ov := overridesOf(ctx); !ov.hasHedge || ov.hedge.s != nil || !ov.hasSched || ov.sched.s != nil {
		t.Errorf("WithHedge(nil) over both = %+v", ov)
	}
	if ov := overridesOf(context.Background()); ov.hasSched || ov.hasHedge {
		t.Errorf("no overrides = %+v", ov)
	}
}
