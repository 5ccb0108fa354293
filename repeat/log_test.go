package repeat_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/repeat"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

func TestLogging(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey && len(groups) == 0 {
				return slog.Attr{}
			}
			return a
		},
	}))
	o := repeat.Options{Caps: retry.Caps{Clock: clockcap.Virtual(epoch)}, Observer: retry.LogObserver(log)}
	s := schedule.Intersect{A: every30s, B: schedule.Times{N: 3}}
	if _, err := repeat.Repeat(context.Background(), o, s, func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`level=DEBUG msg=repeat runs=1 delay=30s`,
		`level=DEBUG msg=repeat runs=2 delay=30s`,
	}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSpace(buf.String()), "\n")); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
}
