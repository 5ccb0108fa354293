package budget

import "errors"

// ErrThrottled is the error a runner returns for a call that a budget's
// Request refused: the client shed it locally, without sending it, because
// the target has been refusing most calls lately.
var ErrThrottled = errors.New("budget: call throttled locally")
