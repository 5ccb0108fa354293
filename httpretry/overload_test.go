package httpretry_test

import (
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/httpretry"
)

func TestOverloaded(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	open := &breaker.OpenError{Name: "db", State: breaker.Open, Until: now.Add(2500 * time.Millisecond), For: 5 * time.Second}
	type answer struct {
		Wrote      bool
		Code       int
		RetryAfter string
	}
	tests := []struct {
		name string
		err  error
		want answer
	}{
		{"open breaker: seconds left, rounded up", fmt.Errorf("call: %w", open), answer{true, 503, "3"}},
		{"open breaker past its time: at least 1", &breaker.OpenError{State: breaker.Open, Until: now.Add(-time.Second)}, answer{true, 503, "1"}},
		{"forced open: no Retry-After", &breaker.OpenError{State: breaker.ForcedOpen}, answer{true, 503, ""}},
		{"budget refused: no Retry-After", budget.ErrThrottled, answer{true, 503, ""}},
		{"another error: nothing written", errors.New("boom"), answer{false, 200, ""}},
		{"nil: nothing written", nil, answer{false, 200, ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			wrote := httpretry.Overloaded(rec, tt.err, now)
			got := answer{wrote, rec.Code, rec.Header().Get("Retry-After")}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
