package retry_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// logger returns a text logger at level into buf, without times.
func logger(buf *bytes.Buffer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{
		Level: level,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey && len(groups) == 0 {
				return slog.Attr{}
			}
			return a
		},
	}))
}

func TestLogging(t *testing.T) {
	s := schedule.Intersect{A: schedule.Exponential{Base: time.Second, FactorPct: 200, Cap: time.Minute}, B: schedule.Times{N: 3}}
	failing := func(context.Context) (int, error) { return 0, errFlaky }
	tests := []struct {
		name  string
		level slog.Level
		op    func(context.Context) (int, error)
		want  []string
	}{
		{"success logs nothing", slog.LevelDebug, succeed, nil},
		{"a debug record per retry and one on giving up", slog.LevelDebug, failing, []string{
			`level=DEBUG msg=retry attempt=1 delay=1s err=flaky`,
			`level=DEBUG msg=retry attempt=2 delay=2s err=flaky`,
			`level=WARN msg="retry: giving up" attempts=3 reason="schedule exhausted" err=flaky`,
		}},
		{"giving up is a warning", slog.LevelInfo, failing, []string{
			`level=WARN msg="retry: giving up" attempts=3 reason="schedule exhausted" err=flaky`,
		}},
		{"nothing above warn", slog.LevelError, failing, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			o := retry.Options{Caps: retry.Caps{Clock: clockcap.Virtual(epoch), Logger: logger(&buf, tt.level)}}
			_, _ = retry.Retry(context.Background(), o, s, tt.op)
			var got []string
			if out := strings.TrimSpace(buf.String()); out != "" {
				got = strings.Split(out, "\n")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("log (-want +got):\n%s", diff)
			}
		})
	}
}
