package httpretry

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
)

// Overloaded answers a request that a server-side guard refused: if err
// matches breaker.ErrOpen or budget.ErrThrottled, it writes 503 Service
// Unavailable and returns true; for any other error it writes nothing and
// returns false, so the caller answers as it would.
//
// For an open breaker's *breaker.OpenError, the answer carries a
// Retry-After of the time the breaker stays open after now, in whole
// seconds rounded up (at least 1): a well-behaved client — this package's
// Transport included — waits that long instead of retrying at once. A
// breaker forced open, or a budget's refusal, carry no Retry-After: the
// server cannot tell when it will take calls again, and the 503 says
// "overloaded; do not retry now" on its own.
//
//	v, err := breaker.Do(ctx, b, judge, op)
//	if httpretry.Overloaded(w, err, time.Now()) {
//		return
//	}
func Overloaded(w http.ResponseWriter, err error, now time.Time) bool {
	if !errors.Is(err, breaker.ErrOpen) && !errors.Is(err, budget.ErrThrottled) {
		return false
	}
	var open *breaker.OpenError
	if errors.As(err, &open) {
		if d, ok := open.Remaining(now); ok {
			secs := max((d+time.Second-1)/time.Second, 1)
			w.Header().Set("Retry-After", strconv.FormatInt(int64(secs), 10))
		}
	}
	http.Error(w, http.StatusText(http.StatusServiceUnavailable), http.StatusServiceUnavailable)
	return true
}
