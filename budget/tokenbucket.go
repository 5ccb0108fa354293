package budget

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/recur-go/recur/verdict"
)

// Defaults and limits of TokenBucketConfig, from gRFC A6.
const (
	DefaultMaxTokens  = 10
	DefaultTokenRatio = 0.1
	// MaxMaxTokens is the largest MaxTokens A6 allows.
	MaxMaxTokens = 1000
)

// TokenBucketConfig configures gRPC's retry throttling (gRFC A6).
type TokenBucketConfig struct {
	// MaxTokens is the bucket's size; it starts full. Each failed attempt
	// takes a token, and retries are made only while more than half of
	// them are left. Zero means 10; it must not exceed 1000.
	MaxTokens int
	// TokenRatio is what each successful attempt puts back, in tokens,
	// truncated to thousandths as A6 says ("0.5466 is treated as 0.546"):
	// the decimal digits past the third are dropped. With the default 0.1, a target
	// must answer ten attempts for every failure to keep retries coming.
	// Zero means 0.1; it must be at least 0.001.
	TokenRatio float64
}

func (TokenBucketConfig) config() {}

// New returns NewTokenBucket(c) as a Budget.
func (c TokenBucketConfig) New() (Budget, error) {
	b, err := NewTokenBucket(c)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// TokenBucket is gRPC's retry throttle (gRFC A6): a bucket of MaxTokens
// tokens that each failed attempt drains by one and each success refills
// by TokenRatio; a retry is allowed only while the bucket is more than
// half full. A healthy target keeps it full; a failing one empties it to
// the half mark within MaxTokens/2 failures, after which retries stop
// until successes refill it. That bounds the extra load retries add to
// about TokenRatio per attempt: 10% with the defaults, never a storm.
//
// The count lives in one atomic integer of thousandths of a token, as in
// grpc-go; nothing locks and no clock is read. A TokenBucket never refuses
// a first attempt.
type TokenBucket struct {
	max, ratio int32        // thousandths: at most 10⁶
	tokens     atomic.Int64 // thousandths

	requests, retries, throttled atomic.Uint64 // for Stats
}

// NewTokenBucket returns a full token bucket, or an error that names the
// bad field of c.
func NewTokenBucket(c TokenBucketConfig) (*TokenBucket, error) {
	switch {
	case c.MaxTokens == 0:
		c.MaxTokens = DefaultMaxTokens
	case c.MaxTokens < 0 || c.MaxTokens > MaxMaxTokens:
		return nil, fmt.Errorf("budget: TokenBucketConfig.MaxTokens = %d is not from 1 to %d", c.MaxTokens, MaxMaxTokens)
	}
	if c.TokenRatio == 0 {
		c.TokenRatio = DefaultTokenRatio
	}
	ratio, ok := thousandths(c.TokenRatio)
	if !ok || ratio < 1 || ratio > int64(c.MaxTokens)*1000 {
		return nil, fmt.Errorf("budget: TokenBucketConfig.TokenRatio = %v is not from 0.001 to MaxTokens", c.TokenRatio)
	}
	b := &TokenBucket{max: int32(c.MaxTokens) * 1000, ratio: int32(ratio)}
	b.tokens.Store(int64(b.max))
	return b, nil
}

// Request counts the call and allows it.
func (b *TokenBucket) Request() bool {
	b.requests.Add(1)
	return true
}

// AllowRetry reports whether more than half the tokens are left.
func (b *TokenBucket) AllowRetry() bool {
	if b.tokens.Load() > int64(b.max/2) {
		b.retries.Add(1)
		return true
	}
	b.throttled.Add(1)
	return false
}

// Record puts TokenRatio back for a Success and takes a token for an
// attempt that failed or was pushed back (Transient, Retryable, Failure):
// the bucket measures load the target could not take, so a 429 drains it
// although it does not count against the target's health in a breaker.
// Neutral and unknown verdicts change nothing.
func (b *TokenBucket) Record(v verdict.Verdict) {
	switch v {
	case verdict.Success:
		for {
			t := b.tokens.Load()
			if t >= int64(b.max) || b.tokens.CompareAndSwap(t, min(t+int64(b.ratio), int64(b.max))) {
				return
			}
		}
	case verdict.Transient, verdict.Retryable, verdict.Failure:
		for {
			t := b.tokens.Load()
			if t <= 0 || b.tokens.CompareAndSwap(t, max(t-1000, 0)) {
				return
			}
		}
	}
}

// Tokens returns the tokens left.
func (b *TokenBucket) Tokens() float64 { return float64(b.tokens.Load()) / 1000 }

// Stats returns the bucket's counters.
func (b *TokenBucket) Stats() Stats {
	return Stats{
		Requests:  b.requests.Load(),
		Retries:   b.retries.Load(),
		Throttled: b.throttled.Load(),
		Tokens:    b.Tokens(),
	}
}

// thousandths returns r in whole thousandths, truncated as gRFC A6 says.
// It truncates the shortest decimal that reads back as r, the number the
// user wrote, not r's binary value: 0.29 is 290 thousandths although
// 0.29·1000 is 289.99… in float64. It reports false for a negative, NaN
// or infinite r and for one too large to hold.
func thousandths(r float64) (int64, bool) {
	if !(r >= 0 && r < 1e15) {
		return 0, false
	}
	whole, frac, _ := strings.Cut(strconv.FormatFloat(r, 'f', -1, 64), ".")
	n, err := strconv.ParseInt(whole+(frac + "000")[:3], 10, 64)
	return n, err == nil
}
