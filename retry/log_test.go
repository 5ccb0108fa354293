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
	"github.com/recur-go/recur/verdict"
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
			o := retry.Options{Caps: retry.Caps{Clock: clockcap.Virtual(epoch)}, Observer: retry.LogObserver(logger(&buf, tt.level))}
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

// TestLogObserverTagsAndLevels: the target and the label go in every
// record, and a call the caller canceled gives up at debug level.
func TestLogObserverTagsAndLevels(t *testing.T) {
	judge := func(_ int, err error) retry.Judgement {
		return retry.Judgement{Verdict: verdict.Transient, Reason: "status_503"}
	}
	var buf bytes.Buffer
	o := retry.Options{
		Caps:        retry.Caps{Clock: clockcap.Virtual(epoch)},
		Observer:    retry.LogObserver(logger(&buf, slog.LevelDebug)),
		Target:      "db:5432",
		Unthrottled: true,
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, _ = retry.Do(ctx, o, schedule.Times{N: 5}, judge, nil, func(context.Context) (int, error) {
		if n++; n == 2 {
			cancel()
		}
		return 0, errFlaky
	})
	want := []string{
		`level=DEBUG msg=retry attempt=1 delay=0s label=status_503 target=db:5432 err=flaky`,
		`level=DEBUG msg="retry: giving up" attempts=2 reason=canceled label=status_503 target=db:5432 err=flaky`,
	}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSpace(buf.String()), "\n")); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
	if retry.LogObserver(nil) != nil {
		t.Error("LogObserver(nil) is not nil")
	}
}

// TestObservers: every observer sees every event in order, nil ones are
// dropped, nested lists flatten, and none or one need no list.
func TestObservers(t *testing.T) {
	var got []string
	rec := func(name string) retry.Observer {
		return retry.ObserverFunc(func(_ context.Context, e retry.Event) { got = append(got, name+":"+e.Kind.String()) })
	}
	a, b, c := rec("a"), rec("b"), rec("c")
	if retry.Observers() != nil || retry.Observers(nil, nil) != nil {
		t.Error("Observers of none is not nil")
	}
	o := retry.Observers(a, nil, retry.Observers(b, c))
	o.Observe(context.Background(), retry.Event{Kind: retry.Recovered})
	if diff := cmp.Diff([]string{"a:recovered", "b:recovered", "c:recovered"}, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	got = nil
	retry.Observers(nil, a).Observe(context.Background(), retry.Event{Kind: retry.GaveUp})
	if diff := cmp.Diff([]string{"a:gave-up"}, got); diff != "" {
		t.Errorf("one observer (-want +got):\n%s", diff)
	}
}
