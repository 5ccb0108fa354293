package redisretry

import (
	"context"
	"errors"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	"github.com/redis/go-redis/v9"
)

// ProcessPipelineHook retries a pipeline (or a MULTI/EXEC transaction)
// whole, and only when every command in it is marked idempotent: the
// context carries WithIdempotent's mark, or ReadOnlyIdempotent is set and
// every command is on ReadOnly's list. Any other pipeline is sent once,
// through the breaker. The pipeline's verdict is that of its first failed
// command.
func (h *Hook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if allSetup(cmds) {
			return next(ctx, cmds)
		}
		s := h.s
		if !h.pipelineIdempotent(ctx, cmds) {
			s = schedule.Times{N: 1}
		}
		n := 0
		var raw error // what go-redis returned: its first command's error
		_, err := retry.Do(ctx, h.o, s, judge, nil, func(actx context.Context) (struct{}, error) {
			if n++; n > 1 {
				for _, c := range cmds {
					c.SetErr(nil)
				}
			}
			raw = next(actx, cmds)
			if raw == nil || errors.Is(raw, redis.Nil) {
				return struct{}{}, attempted(ctx, actx, firstErr(cmds))
			}
			return struct{}{}, attempted(ctx, actx, raw)
		})
		var re *retry.Error
		switch {
		case errors.Is(err, breaker.ErrOpen):
			for _, c := range cmds {
				if c.Err() == nil {
					c.SetErr(err)
				}
			}
			return err
		case errors.As(err, &re):
			return err
		}
		return raw
	}
}

// setup reports whether name is a command go-redis sends while it sets
// up a connection (HELLO, AUTH, SELECT, READONLY, CLIENT SETNAME and
// SETINFO...). It sends them through the client's hooks, from inside the
// command that needed the connection, which the hook already guards: they
// pass through, so that they do not take the breaker's half-open probe
// from the command they serve.
func setup(name string) bool {
	switch name {
	case "hello", "auth", "select", "readonly", "client":
		return true
	}
	return false
}

func allSetup(cmds []redis.Cmder) bool {
	for _, c := range cmds {
		if !setup(c.Name()) {
			return false
		}
	}
	return len(cmds) > 0
}

// firstErr returns the error of the first command that failed for a
// reason other than redis.Nil.
func firstErr(cmds []redis.Cmder) error {
	for _, c := range cmds {
		if err := c.Err(); err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
	}
	return nil
}

// pipelineIdempotent reports whether every command of cmds is marked
// idempotent.
func (h *Hook) pipelineIdempotent(ctx context.Context, cmds []redis.Cmder) bool {
	if IsIdempotent(ctx) {
		return true
	}
	if !h.readOnly {
		return false
	}
	for _, c := range cmds {
		if !ReadOnly(c.Name()) {
			return false
		}
	}
	return true
}
