package retry

import (
	"context"
	"errors"
	"log/slog"
)

// LogObserver returns an Observer that writes a run's events to l: a
// debug record "retry" before each wait, with the number of the attempt
// that failed, the delay, the judgement's label and the error; and a
// record "retry: giving up" when the runner gives up, with the attempts
// made, the Reason, the label and the last attempt's error. For
// repeat.Repeat it writes a debug record "repeat" before each wait, with
// the runs so far and the delay. Giving up is
// logged at warn level, because a call that failed after all its retries
// is what an operator wants to see at a service's default level (info)
// while single retries are noise; a call the caller canceled gives up at
// debug level, since the caller chose it. Attempts and recoveries are not
// logged, so a call that succeeds at once logs nothing. A nil l returns a
// nil Observer.
//
// Each record goes through l.LogAttrs with the call's context, and
// carries the event's Target as "target" when it is set.
func LogObserver(l *slog.Logger) Observer {
	if l == nil {
		return nil
	}
	return logObserver{l}
}

type logObserver struct{ l *slog.Logger }

func (o logObserver) Observe(ctx context.Context, e Event) {
	switch e.Kind {
	case Retrying:
		if !o.l.Enabled(ctx, slog.LevelDebug) {
			return
		}
		if e.Err == nil { // repeat.Repeat's, after a successful run
			o.l.LogAttrs(ctx, slog.LevelDebug, "repeat", e.tags([]slog.Attr{slog.Int("runs", e.Attempt), slog.Duration("delay", e.Delay)})...)
			return
		}
		attrs := make([]slog.Attr, 0, 5)
		attrs = append(attrs, slog.Int("attempt", e.Attempt), slog.Duration("delay", e.Delay))
		attrs = e.tags(attrs)
		o.l.LogAttrs(ctx, slog.LevelDebug, "retry", append(attrs, slog.Any("err", e.Err))...)
	case GaveUp:
		level := slog.LevelWarn
		if e.Reason == Canceled {
			level = slog.LevelDebug // the caller's own choice, not a failure to report
		}
		if !o.l.Enabled(ctx, level) {
			return
		}
		err := e.Err
		var re *Error
		if errors.As(err, &re) {
			err = re.Err
		}
		attrs := make([]slog.Attr, 0, 5)
		attrs = append(attrs, slog.Int("attempts", e.Attempt), slog.String("reason", e.Reason.String()))
		attrs = e.tags(attrs)
		o.l.LogAttrs(ctx, level, "retry: giving up", append(attrs, slog.Any("err", err))...)
	}
}

// tags appends the event's label and target, when set, to attrs.
func (e *Event) tags(attrs []slog.Attr) []slog.Attr {
	if e.Label != "" {
		attrs = append(attrs, slog.String("label", e.Label))
	}
	if e.Target != "" {
		attrs = append(attrs, slog.String("target", e.Target))
	}
	return attrs
}

// Observers returns an Observer that hands each event to every one of obs
// that is not nil, in order. With none left it returns nil, which costs a
// runner nothing; with one, that one.
func Observers(obs ...Observer) Observer {
	var list multiObserver
	for _, o := range obs {
		switch o := o.(type) {
		case nil:
		case multiObserver:
			list = append(list, o...)
		default:
			list = append(list, o)
		}
	}
	switch len(list) {
	case 0:
		return nil
	case 1:
		return list[0]
	}
	return list
}

type multiObserver []Observer

func (m multiObserver) Observe(ctx context.Context, e Event) {
	for _, o := range m {
		o.Observe(ctx, e)
	}
}
